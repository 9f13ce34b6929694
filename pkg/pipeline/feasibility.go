package pipeline

import (
	"context"
	"slices"
	"strings"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// checkChunk is the page size of the feasibility checks' LISTs.
const checkChunk = 500

// noNodes is capacity's unchecked reason when the cluster lists no node (a fake or
// control-plane-only cluster): said once, on the plan, not as a warning.
const noNodes = "no nodes listed"

// checkReads caches the feasibility checks' objects per Source and namespace, so a selection
// of many Deployments of one namespace reads them once.
type checkReads struct {
	mu sync.Mutex
	by map[string]*checkRead
}

type checkRead struct {
	once sync.Once
	c    feasibility.Cluster
}

// objects returns the objects the checks read for m: from a state file, the objects it
// carries (State.CheckObjects); from a cluster, cluster.LoadNamespaceCheckObjects once per
// Source and namespace, and cluster.LoadClusterCheckObjects (nodes, every pod: quota finds the
// namespace's among them) once per Source. A cluster that lists no node leaves capacity unchecked ("no nodes listed").
func (c *Config) objects(ctx context.Context, src Source, m Member) feasibility.Cluster {
	var out feasibility.Cluster
	if !src.Live() {
		if m.State != nil && m.State.CheckObjects != nil {
			out = *m.State.CheckObjects
		}
	} else {
		out = c.liveObjects(ctx, src, m.Namespace)
	}
	if out.Nodes != nil && len(out.Nodes) == 0 {
		out.Nodes, out.NodeReason = nil, noNodes
	}
	return out
}

// clientSource is what liveObjects needs of a Source or a KindSource.
type clientSource interface {
	Name() string
	Client() (kubernetes.Interface, error)
}

// liveObjects reads the checks' objects of namespace from src's cluster:
// cluster.LoadNamespaceCheckObjects once per Source and namespace, and
// cluster.LoadClusterCheckObjects (nodes, every pod) once per Source, both cached in c and
// shared by every plan of c, Deployments and the other kinds alike.
func (c *Config) liveObjects(ctx context.Context, src clientSource, namespace string) feasibility.Cluster {
	e := c.entry(src.Name() + "\x00" + namespace)
	e.once.Do(func() {
		client, err := src.Client()
		if err != nil {
			e.c = unreadable(err.Error())
			return
		}
		e.c = cluster.LoadNamespaceCheckObjects(ctx, client, namespace, c.Feasibility, checkChunk)
		if slices.Contains(c.Feasibility, feasibility.CheckCapacity) {
			all := c.read(src.Name()+"\x00", func() feasibility.Cluster {
				return cluster.LoadClusterCheckObjects(ctx, client, c.Feasibility, checkChunk)
			})
			e.c.Nodes, e.c.NodeReason, e.c.Pods, e.c.PodReason = all.Nodes, all.NodeReason, all.Pods, all.PodReason
		}
	})
	return e.c
}

// entry is the cache's entry of key, made on first use.
func (c *Config) entry(key string) *checkRead {
	c.reads.mu.Lock()
	defer c.reads.mu.Unlock()
	if c.reads.by == nil {
		c.reads.by = map[string]*checkRead{}
	}
	e := c.reads.by[key]
	if e == nil {
		e = &checkRead{}
		c.reads.by[key] = e
	}
	return e
}

// read returns the cached objects of key, read by load once.
func (c *Config) read(key string, load func() feasibility.Cluster) feasibility.Cluster {
	e := c.entry(key)
	e.once.Do(func() { e.c = load() })
	return e.c
}

// unreadable is a Cluster whose every kind failed to read with reason.
func unreadable(reason string) feasibility.Cluster {
	return feasibility.Cluster{QuotaReason: reason, LimitRangeReason: reason, NodeReason: reason,
		PodReason: reason, PDBReason: reason, HPAReason: reason}
}

// Feasible runs the feasibility checks (Config.Feasibility) on in, the planner's input of m
// read from src; nil when no check is asked for or the checks have nothing to say (quiet).
// Result.Plan, when set, replaces the plan (the pods the cluster holds back made
// unavailable). m.Namespace names the namespace whose objects are read (once per Source and
// namespace, shared with every other plan of c); m.State is the Deployment as read, nil for
// one not yet created (offline, such a Deployment has no state file objects to check).
// Plan calls it on every plan; the plans made outside Plan (a manifest set's, reload's
// restarts) call it too, so every plan is checked the same way. Errors: feasibility.Check's.
func (c *Config) Feasible(ctx context.Context, src Source, m Member, in planner.Input) (*feasibility.Result, error) {
	if len(c.Feasibility) == 0 {
		return nil, nil
	}
	var live *appsv1.Deployment
	if m.State != nil {
		live = m.State.Deployment
	}
	r, err := feasibility.Check(feasibility.Input{Plan: in, Live: live, Cluster: c.objects(ctx, src, m), Checks: c.Feasibility})
	if err != nil || quiet(r) {
		return nil, err
	}
	return r, nil
}

// quiet says r has nothing to say: no finding, no stall, no replayed plan, and every check
// left unchecked only for want of objects (a state file without the kind, a cluster listing
// no node), not for a failed read. A quiet Result is dropped, so a plan without objects to
// check prints (and its JSON reads) as before the checks.
func quiet(r *feasibility.Result) bool {
	if len(r.Findings) > 0 || r.Stall != nil || r.Plan != nil {
		return false
	}
	for _, u := range r.Unchecked {
		if u.Reason != noNodes && !strings.HasSuffix(u.Reason, " in the state file") {
			return false
		}
	}
	return true
}

// CheckWrite runs the feasibility checks (Config.Feasibility) on the plan a verb shows before
// it writes (undo, resume, restart): plan is the controller's plan of desired, the Deployment
// the write makes, from state (the live Deployment and its ReplicaSets, in state's
// namespace). The objects are read from src as Plan reads them (once per Source and
// namespace for the Config's life). It returns the checks' Result (nil when no check is
// asked for or they have nothing to say, so the verb prints as before) and the plan to show:
// the checks' replay (pods the cluster holds back made unavailable) when they made one, else
// plan. Errors: the checks' (a Deployment the replay cannot simulate).
func (c *Config) CheckWrite(ctx context.Context, src Source, state *cluster.State, desired *appsv1.Deployment, plan *planner.Plan) (*feasibility.Result, *planner.Plan, error) {
	m := Member{Source: src.Name(), Ref: target.Ref{Namespace: state.Deployment.Namespace, Name: state.Deployment.Name}, State: state}
	in := planner.Input{Deployment: desired, ReplicaSets: state.ReplicaSets, Readiness: c.Readiness}
	r, err := c.Feasible(ctx, src, m, in)
	if err != nil {
		return nil, nil, err
	}
	if r != nil && r.Plan != nil {
		plan = r.Plan
	}
	return r, plan, nil
}

// Stalls says whether the checks' Result r ends the plan Stalled (quota, capacity).
func Stalls(r *feasibility.Result) bool { return r != nil && r.Stall != nil }
