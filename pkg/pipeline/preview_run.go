package pipeline

import (
	"context"
	"io"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
	"github.com/rollplan/kubectl-rollplan/pkg/manifest"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// DefaultReadiness is the --readiness default of preview and the writing verbs:
// planner.ReadinessBatched.
const DefaultReadiness = string(planner.ReadinessBatched)

// Changer is the change flags of a preview (cmd.ChangeFlags): --image, -f, --replicas,
// --to-revision and --restart applied to a Deployment's State (nil State Deployment: one a
// manifest creates, put in namespace).
type Changer interface {
	// Desired is the offline form: client-side defaults only. Errors: the change's.
	Desired(st *cluster.State, namespace string, in io.Reader, now time.Time) (*appsv1.Deployment, []string, error)
	// ServerDesired is Desired, then a server-side dry run through cs. Errors: Desired's,
	// the dry run's.
	ServerDesired(ctx context.Context, cs kubernetes.Interface, st *cluster.State, namespace string, in io.Reader, now time.Time) (*appsv1.Deployment, []string, error)
}

// DryRunFunc returns what the API server would store for d (an update of live's Deployment,
// or a create when live has none) and a warning when it fell back to client-side defaults.
type DryRunFunc = func(ctx context.Context, cs kubernetes.Interface, live *cluster.State, d *appsv1.Deployment) (*appsv1.Deployment, []string, error)

// Preview is the typed config of "kubectl rollplan preview" for Deployments: the flags'
// values (already validated) and the change. A command fills it and calls PlanOne,
// PlanMany, Config or SetConfig; nothing it does writes to a cluster.
type Preview struct {
	// Readiness is --readiness (planner.Readiness).
	Readiness string
	// Timing is --pod-ready-after and --sync-latency.
	Timing Timing
	// StateFile is --state-file ("" reads the cluster).
	StateFile string
	// Checks is --checks (feasibility.ParseChecks, already validated).
	Checks string
	// Change is the change flags; nil when none was given (the rest of a rollout in flight).
	Change Changer
	// FromManifest: the change applies a manifest (-f, or a manifest set's Deployment).
	FromManifest bool
	// ManifestChange is the change flags with obj as their manifest and no -f file: the
	// change of one Deployment of a manifest set (SetConfig).
	ManifestChange func(obj *unstructured.Unstructured) Changer
	// DryRun is the server-side dry run of a manifest set's Deployment (SetConfig).
	DryRun DryRunFunc
	// In is standard input (-f -).
	In io.Reader
	// Now is the clock; each plan is at Now truncated to the second, UTC.
	Now func() time.Time
}

// now is the preview's time: Now, UTC, truncated to the second.
func (p *Preview) now() time.Time { return p.Now().UTC().Truncate(time.Second) }

// Source is where the preview reads: the state file, or the current context through client.
func (p *Preview) Source(client func() (kubernetes.Interface, error)) Source {
	if p.StateFile != "" {
		return NewFile(p.StateFile)
	}
	return NewLive("", "", client)
}

// Config is the pipeline's config of the flags at now: readiness, timing, the feasibility
// checks and the change (Change applied to each Member; against a cluster, the exact
// server-defaulted template from a dry run).
func (p *Preview) Config(now time.Time) *Config {
	cfg := &Config{
		Readiness:    planner.Readiness(p.Readiness),
		Timing:       p.Timing,
		FromManifest: p.FromManifest,
		Now:          now,
	}
	cfg.Feasibility, _ = feasibility.ParseChecks(p.Checks) // Validate refused a bad value
	if p.Change != nil {
		cfg.Change = p.desired(now)
	}
	return cfg
}

// desired is the pipeline's change: the change flags applied to the state (a Deployment of
// namespace) and, against a cluster, the exact server-defaulted template from a dry run.
func (p *Preview) desired(now time.Time) ChangeFunc {
	return func(ctx context.Context, src Source, state *cluster.State, namespace string) (*appsv1.Deployment, []string, error) {
		if !src.Live() {
			return p.Change.Desired(state, namespace, p.In, now)
		}
		cs, err := src.Client()
		if err != nil {
			return nil, nil, err
		}
		return p.Change.ServerDesired(ctx, cs, state, namespace, p.In, now)
	}
}

// PlanOne plans the one Deployment ref read through client (or the state file): Source.Select
// (a manifest's Deployment not created yet is an empty State), then Config.Plan. Errors: the
// read's (Select), else the Result's Err.
func (p *Preview) PlanOne(ctx context.Context, client func() (kubernetes.Interface, error), ref target.Ref) (Result, error) {
	cfg := p.Config(p.now())
	src := p.Source(client)
	members, err := src.Select(ctx, Selection{Refs: []target.Ref{ref}, AllowMissing: p.FromManifest})
	if err != nil {
		return Result{}, err
	}
	r := cfg.Plan(ctx, src, members[0])
	return r, r.Err
}

// PlanMany plans every Deployment sel selects through client (or the state file), one
// Result each in the selection's order (a Deployment that failed carries its Err). Errors:
// the selection's read.
func (p *Preview) PlanMany(ctx context.Context, client func() (kubernetes.Interface, error), sel Selection) ([]Result, error) {
	src := p.Source(client)
	members, err := src.Select(ctx, sel)
	if err != nil {
		return nil, err
	}
	return p.Config(p.now()).PlanAll(ctx, src, members), nil
}

// PlanContexts plans sel in each of srcs (nil: a context whose Source could not be made, its
// error in errs), Config.Run's DefaultSources at once. It returns every context's Results in
// order and errs with the error of each context that could not be read.
func (p *Preview) PlanContexts(ctx context.Context, srcs []*Live, errs []error, sel Selection) ([]Result, []error) {
	var live []Source
	for _, s := range srcs {
		if s != nil {
			live = append(live, s)
		}
	}
	srs := p.Config(p.now()).Run(ctx, live, sel)
	var results []Result
	for i, j := 0, 0; i < len(srcs); i++ {
		if srcs[i] == nil {
			continue
		}
		if srs[j].Err != nil {
			errs[i] = srs[j].Err
		}
		results = append(results, srs[j].Results...)
		j++
	}
	return results, errs
}

// Stalls says whether r's plan ends Stalled, by the controller's model or the feasibility
// checks (quota, capacity: Stalls).
func (r Result) Stalls() bool {
	return r.Plan.Outcome == planner.OutcomeStalled || (r.Feasibility != nil && r.Feasibility.Stall != nil)
}

// SetConfig is the I/O manifest.PlanSet is given for a manifest set planned against src:
// each Deployment's change (ManifestChange of its object; offline, client-side defaults and
// a warning), the feasibility checks, and the reads: the state file's, else read (a LIST of
// Deployments and of ReplicaSets per namespace) with server-side dry runs (DryRun) through
// src's client.
func (p *Preview) SetConfig(src Source, read ReadFunc) manifest.Config {
	now := p.now()
	cfg := manifest.Config{Readiness: planner.Readiness(p.Readiness), Parallel: manifest.DefaultParallel}
	offline := p.StateFile != ""
	cfg.Desired = func(live *cluster.State, obj manifest.Object) (*appsv1.Deployment, []string, error) {
		c := p.ManifestChange(obj.Object)
		if live == nil {
			live = &cluster.State{}
		}
		d, warnings, err := c.Desired(live, obj.Ref().Namespace, p.In, now)
		if err == nil && offline {
			warnings = append(warnings, "offline: the manifest's template is defaulted client-side; the new ReplicaSet's name may differ from the one the server-defaulted template gets")
		}
		return d, warnings, err
	}
	if offline {
		cfg.Read = ReadStateFile(p.StateFile)
		cfg.Feasible = SetFeasible(p.Checks, src, cfg.Read)
		return cfg
	}
	cfg.Read = read
	cfg.Feasible = SetFeasible(p.Checks, src, nil)
	cfg.DryRun = func(ctx context.Context, live *cluster.State, d *appsv1.Deployment) (*appsv1.Deployment, []string, error) {
		cs, err := src.Client()
		if err != nil {
			return nil, nil, err
		}
		return p.DryRun(ctx, cs, live, d)
	}
	return cfg
}
