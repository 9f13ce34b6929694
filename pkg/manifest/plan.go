package manifest

import (
	"cmp"
	"context"
	"slices"

	"golang.org/x/sync/errgroup"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// DefaultParallel is how many server-side dry runs are in flight at once by default: a small
// number, so that a large set neither floods the API server's priority-and-fairness queue nor
// waits a round trip per Deployment; the client's own QPS limit applies on top.
const DefaultParallel = 4

// Result is the plan of one Deployment of a set, or the error that stopped it.
type Result struct {
	// Ref is the Deployment's namespace and name; Source the file it came from.
	Ref    target.Ref
	Source string
	// Change is Create, Update or NoChange (empty when Err is set).
	Change Change
	// Live is the state read (nil for a create); Desired what the apply leaves.
	Live    *cluster.State
	Desired *appsv1.Deployment
	Plan    *planner.Plan
	// Warnings are about accuracy (a client-side defaulted template) and orphans.
	Warnings []string
	// Feasibility is the feasibility checks' outcome (Config.Feasible; nil when none ran or
	// they had nothing to say). When the checks replayed the plan with pods held back, Plan
	// is that replayed plan.
	Feasibility *feasibility.Result
	// Err is what failed (Ref and Source name the Deployment and its file: the printer puts
	// them in front, printer.PrintFailure).
	Err error
}

// Config is how PlanSet reads, changes and checks each Deployment: the I/O it is given.
type Config struct {
	// Read returns every live Deployment of a namespace with its State (cluster.LoadFleet:
	// one paginated LIST of Deployments and one of ReplicaSets, whatever their number);
	// offline, those of the state file in that namespace. Called once per namespace of the
	// set. A Member's Err fails the manifest Deployment of its name.
	Read func(ctx context.Context, namespace string) ([]cluster.Member, error)
	// Desired applies the manifest object (and any change flags) to live (nil: a create):
	// the client-side result, validated.
	Desired func(live *cluster.State, obj Object) (*appsv1.Deployment, []string, error)
	// DryRun returns the Deployment the API server would store for desired (a server-side
	// dry run: create without live, update with), with warnings; nil offline.
	DryRun func(ctx context.Context, live *cluster.State, desired *appsv1.Deployment) (*appsv1.Deployment, []string, error)
	// Readiness is the planner's availability model.
	Readiness planner.Readiness
	// Parallel bounds the dry runs in flight (DefaultParallel when 0).
	Parallel int
	// Feasible runs the feasibility checks on a Deployment's planner input (PlannerInput;
	// live nil for a create): pipeline.Config.Feasible of the Source the set is planned
	// against. nil: no check. Its error fails that Deployment.
	Feasible func(ctx context.Context, live *cluster.State, in planner.Input) (*feasibility.Result, error)
}

// PlanSet plans every Deployment of set: it reads the live state of each namespace the set
// touches (cfg.Read, once per namespace), applies each manifest (cfg.Desired), sends the dry
// runs concurrently, at most cfg.Parallel at a time (errgroup.SetLimit; the client's rate
// limiter paces them further), then decides each (Decide). One Result per Deployment, in
// the set's order; a Deployment that fails carries its error and the others are planned.
// The only error returned is ctx's.
func PlanSet(ctx context.Context, set *Set, cfg Config) ([]Result, error) {
	results := make([]Result, len(set.Deployments))
	lives := readNamespaces(ctx, set, cfg, results)
	desired := make([]*appsv1.Deployment, len(results))
	for i, obj := range set.Deployments {
		if results[i].Err != nil {
			continue
		}
		d, warnings, err := cfg.Desired(lives[i], obj)
		results[i].Warnings = append(results[i].Warnings, warnings...)
		results[i].Err = err
		desired[i] = d
	}
	if cfg.DryRun != nil {
		dryRunAll(ctx, cfg, lives, desired, results)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i := range results {
		r := &results[i]
		if r.Err != nil {
			continue
		}
		r.Live, r.Desired = lives[i], desired[i]
		r.Ref.Namespace = desired[i].Namespace // offline, a manifest without one takes the file's
		change, plan, warnings, err := Decide(lives[i], desired[i], cfg.Readiness)
		r.Change, r.Plan, r.Err = change, plan, err
		r.Warnings = append(r.Warnings, warnings...)
	}
	if cfg.Feasible != nil {
		checkAll(ctx, cfg, lives, results)
	}
	return results, nil
}

// checkAll runs cfg.Feasible on every planned Deployment, cfg.Parallel at a time (the reads
// are shared per namespace by the pipeline), and replaces a plan the checks replayed.
func checkAll(ctx context.Context, cfg Config, lives []*cluster.State, results []Result) {
	Each(ctx, len(results), cfg.Parallel, func(ctx context.Context, i int) {
		r := &results[i]
		if r.Err != nil {
			return
		}
		f, err := cfg.Feasible(ctx, lives[i], PlannerInput(lives[i], r.Desired, cfg.Readiness))
		if err != nil {
			r.Plan, r.Err = nil, err
			return
		}
		r.Feasibility = f
		if f != nil && f.Plan != nil {
			r.Plan = f.Plan
		}
	})
}

// readNamespaces reads each namespace of the set once and returns the live State of each
// Deployment (nil: not live). A namespace that cannot be read fails its Deployments.
func readNamespaces(ctx context.Context, set *Set, cfg Config, results []Result) []*cluster.State {
	byNS := map[string]map[string]cluster.Member{}
	errs := map[string]error{}
	for _, ns := range set.Namespaces() {
		members, err := cfg.Read(ctx, ns)
		if err != nil {
			errs[ns] = err
			continue
		}
		byNS[ns] = map[string]cluster.Member{}
		for _, m := range members {
			byNS[ns][m.Deployment.Name] = m
		}
	}
	lives := make([]*cluster.State, len(results))
	for i, obj := range set.Deployments {
		results[i].Ref, results[i].Source = obj.Ref(), obj.Source
		if err := errs[obj.Ref().Namespace]; err != nil {
			results[i].Err = err
			continue
		}
		m := byNS[obj.Ref().Namespace][obj.Ref().Name]
		if m.Err != nil {
			results[i].Err = m.Err
			continue
		}
		lives[i] = m.State
	}
	return lives
}

// dryRunAll sends the dry runs of the Deployments without an error yet, cfg.Parallel in
// flight (Each), and replaces desired[i] with the server's answer.
func dryRunAll(ctx context.Context, cfg Config, lives []*cluster.State, desired []*appsv1.Deployment, results []Result) {
	Each(ctx, len(results), cfg.Parallel, func(ctx context.Context, i int) {
		if results[i].Err != nil {
			return
		}
		server, warnings, err := cfg.DryRun(ctx, lives[i], desired[i])
		if err != nil {
			results[i].Err = err
			return
		}
		desired[i] = server
		results[i].Warnings = append(results[i].Warnings, warnings...)
	})
}

// Each calls fn(ctx, i) for every i from 0 to n-1, at most parallel at a time
// (DefaultParallel when 0; errgroup.SetLimit), and returns when every call has returned. It
// is the one bound of the server-side dry runs of many Deployments: a manifest set's
// (PlanSet) and a preview's over many live Deployments. fn keeps its own outcome at index i
// (a slice it was given), so results stay in the input's order whatever order they finish
// in, and one that fails does not stop the others; fn must not touch another index. A
// cancelled ctx is seen by fn (its calls are still made: each records ctx's error).
func Each(ctx context.Context, n, parallel int, fn func(ctx context.Context, i int)) {
	var g errgroup.Group
	g.SetLimit(cmp.Or(parallel, DefaultParallel))
	for i := range n {
		g.Go(func() error {
			fn(ctx, i)
			return nil
		})
	}
	_ = g.Wait() // the calls return nothing: each outcome is its index's
}

// Namespaces returns the namespaces of the set's Deployments, sorted, each once.
func (s *Set) Namespaces() []string {
	var out []string
	for _, d := range s.Deployments {
		out = append(out, d.Object.GetNamespace())
	}
	slices.Sort(out)
	return slices.Compact(out)
}
