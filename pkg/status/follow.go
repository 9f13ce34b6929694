package status

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/estimate"
	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/watch"
)

// Config says which Deployments Follow reads and how long it follows them.
type Config struct {
	// Namespace of the Deployments; metav1.NamespaceAll ("", -A) reads every namespace (with
	// Selector only: Names need a namespace).
	Namespace string
	// Names selects Deployments by name; empty selects by Selector.
	Names []string
	// Selector selects the Deployments when Names is empty (nil: every one in Namespace).
	Selector labels.Selector
	// Watch follows the rollouts until every one is done; false reads them once.
	Watch bool
	// Timeout ends a Watch (ErrTimeout result); 0: none.
	Timeout time.Duration
	// Options are Compute's.
	Options Options
	// ETA computes the ETA of each rollout under the time model, and its step k of n against
	// the timed plan (Options.UseTimedModel): the namespace's pods (or, for one name, those
	// of its selector) are watched too. ReadyAfter is the estimate of --pod-ready-after; nil
	// measures each Deployment's own pods. SyncLatency is --sync-latency's; nil fits it to
	// each Deployment's last rollout, kept once the next rollout starts (Latencies).
	ETA         bool
	ReadyAfter  *estimate.Estimate
	SyncLatency *estimate.Latency
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// FailFast ends the follow as soon as the new pods of a rollout have been in a state
	// that holds it back (stall.Stuck) for FailFastAfter (Status.FailedFast).
	FailFast      bool
	FailFastAfter time.Duration
	// Feasible, when set, runs the feasibility checks on the remaining plan of each rollout
	// in progress (not paused, not held by drive): st is the Deployment as read, in its
	// planner input from the live state (Status.Feasibility). It is called at every read; a
	// caller that reads the checks' objects caches them (pipeline.Config.Feasible reads them
	// once per namespace). Its error leaves Feasibility nil.
	Feasible func(ctx context.Context, st *cluster.State, in planner.Input) (*feasibility.Result, error)
}

// Follow reads the Deployments cfg selects and their ReplicaSets through a watch cache
// (pkg/watch: one LIST each, then a watch; for one name the Deployment is read first, and
// only the ReplicaSets its selector matches are watched) and calls show with their
// statuses (Compute), sorted by namespace and name: once without cfg.Watch; with it, at once, on every
// change and every second, until every rollout is done (AllDone), ctx ends or cfg.Timeout
// passes. It returns the last statuses and whether the timeout passed.
//
// Errors: reading a named Deployment (kubectl's NotFound), starting the watch, a named
// Deployment deleted while followed (as `kubectl rollout status`: "object has been
// deleted"), show's, and ctx's cause.
func Follow(ctx context.Context, client kubernetes.Interface, cfg Config, show func([]*Status) error) ([]*Status, bool, error) {
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	opts := watch.Options{Namespace: cfg.Namespace, Selector: cfg.Selector, Pods: cfg.ETA, Now: now}
	if len(cfg.Names) > 0 && cfg.Namespace == metav1.NamespaceAll {
		return nil, false, errors.New("a Deployment is named in its namespace: give the namespace, not all namespaces")
	}
	if len(cfg.Names) == 1 {
		d, err := client.AppsV1().Deployments(cfg.Namespace).Get(ctx, cfg.Names[0], metav1.GetOptions{})
		if err != nil {
			return nil, false, err
		}
		if opts.ReplicaSets, err = metav1.LabelSelectorAsSelector(d.Spec.Selector); err != nil {
			return nil, false, fmt.Errorf("deployment %s/%s: spec.selector: %w", d.Namespace, d.Name, err)
		}
		opts.Name = d.Name
	}
	if len(cfg.Names) > 1 {
		opts.Selector = nil
	}
	c, err := watch.Start(ctx, client, opts)
	if err != nil {
		return nil, false, err
	}
	defer c.Close()
	var last []*Status
	var doneAt time.Time
	g := &diagnoser{ctx: ctx, client: client, every: DiagnoseEvery, last: map[string]diagnosis{}}
	kept := Latencies{}
	eval := func() (bool, error) {
		sts, err := read(ctx, c, cfg, now(), last == nil, g, kept)
		if err != nil {
			return false, err
		}
		last = sts
		if err := show(sts); err != nil {
			return false, err
		}
		if anyFailedFast(sts) {
			return true, nil
		}
		if !cfg.Watch || !AllDone(sts) {
			return !cfg.Watch, nil
		}
		// Done: end once the ReplicaSets read agree with the Deployments' status, or after
		// SettleWait (a ReplicaSet event may arrive after the Deployment's).
		if doneAt.IsZero() {
			doneAt = now()
		}
		return allSettled(sts) || now().Sub(doneAt) >= SettleWait, nil
	}
	timeout := cfg.Timeout
	if !cfg.Watch || timeout <= 0 {
		timeout = time.Duration(1<<63 - 1)
	}
	err = c.Wait(ctx, timeout, eval, nil)
	if errors.Is(err, watch.ErrTimeout) {
		return last, true, nil
	}
	return last, false, err
}

// SettleWait is how long Follow waits, once every rollout is done, for the ReplicaSets to
// agree with the Deployments' status before it ends anyway.
const SettleWait = 2 * time.Second

func allSettled(sts []*Status) bool {
	for _, s := range sts {
		if !s.Settled {
			return false
		}
	}
	return true
}

// read computes the status of every selected Deployment in the cache, sorted by namespace
// and name, with why each rollout does not progress (g), and the sync latency of each
// Deployment's last complete rollout kept across reads (kept). A named Deployment missing
// at the first read is not found, later it was deleted.
func read(ctx context.Context, c *watch.Cache, cfg Config, now time.Time, first bool, g *diagnoser, kept Latencies) ([]*Status, error) {
	ds, err := c.Deployments().List(labels.Everything())
	if err != nil {
		return nil, err
	}
	rss, err := c.ReplicaSets().List(labels.Everything())
	if err != nil {
		return nil, err
	}
	if len(cfg.Names) > 0 {
		ds = slices.DeleteFunc(ds, func(d *appsv1.Deployment) bool { return !slices.Contains(cfg.Names, d.Name) })
		if len(ds) < len(cfg.Names) {
			if first {
				return nil, fmt.Errorf("deployments.apps %q not found in namespace %s", missing(cfg, ds), cfg.Namespace)
			}
			return nil, fmt.Errorf("deployment %s/%s: object has been deleted", cfg.Namespace, missing(cfg, ds))
		}
	}
	slices.SortFunc(ds, func(a, b *appsv1.Deployment) int {
		return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
	})
	var pods []*corev1.Pod
	if cfg.ETA && c.Pods() != nil {
		if pods, err = c.Pods().List(labels.Everything()); err != nil {
			return nil, err
		}
	}
	out := make([]*Status, 0, len(ds))
	for _, d := range ds {
		st, err := cluster.StateOf(d, rss)
		if err != nil {
			return nil, err
		}
		opts := cfg.Options
		if cfg.ETA {
			used := opts.UseTimedModel(st, pods, cfg.ReadyAfter, kept.For(st.Deployment, cfg.SyncLatency), now)
			kept.Keep(st.Deployment, used)
		}
		s := Compute(st.Deployment, st.ReplicaSets, now, opts)
		g.why(s, newReplicaSet(s, st.ReplicaSets), cachedPods(c, pods), now)
		if cfg.FailFast {
			s.failFast(now, cfg.FailFastAfter)
		}
		s.feasible(ctx, cfg.Feasible, st)
		out = append(out, s)
	}
	return out, nil
}

// feasible sets s.Feasibility from check on the remaining plan of st (planner.Input from the
// live Deployment and ReplicaSets), for a rollout in progress that nothing holds (not paused,
// not held by drive): a complete or failed rollout has no remaining plan to check.
func (s *Status) feasible(ctx context.Context, check func(context.Context, *cluster.State, planner.Input) (*feasibility.Result, error), st *cluster.State) {
	if check == nil || s.Phase != PhaseProgressing || s.Paused || s.HeldBy != "" {
		return
	}
	r, err := check(ctx, st, planner.Input{Deployment: st.Deployment, ReplicaSets: st.ReplicaSets})
	if err == nil {
		s.Feasibility = r
	}
}

// missing names the first of cfg.Names not in ds.
func missing(cfg Config, ds []*appsv1.Deployment) string {
	for _, n := range cfg.Names {
		if !slices.ContainsFunc(ds, func(d *appsv1.Deployment) bool { return d.Name == n }) {
			return n
		}
	}
	return ""
}

// newReplicaSet returns the ReplicaSet of rss named s.NewReplicaSet, nil when none.
func newReplicaSet(s *Status, rss []*appsv1.ReplicaSet) *appsv1.ReplicaSet {
	for _, rs := range rss {
		if s.NewReplicaSet != "" && rs.Name == s.NewReplicaSet {
			return rs
		}
	}
	return nil
}

// cachedPods is pods when c watches pods (never nil then), else nil (stall.Read lists them).
func cachedPods(c *watch.Cache, pods []*corev1.Pod) []*corev1.Pod {
	if c.Pods() == nil {
		return nil
	}
	if pods == nil {
		return []*corev1.Pod{}
	}
	return pods
}
