package pipeline

import (
	"context"
	"time"

	"golang.org/x/sync/errgroup"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/estimate"
	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
	"github.com/rollplan/kubectl-rollplan/pkg/manifest"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// DefaultSources is how many Sources Run reads at once: each within its own client's rate
// limit, so the wall time is about the slowest cluster's, not the sum.
const DefaultSources = 4

// ChangeFunc returns the Deployment a change would store for st (a Deployment of namespace,
// read from src: a server-side dry run needs src.Client) and the change's own warnings.
// Errors: the change's (invalid, a failed dry run).
type ChangeFunc func(ctx context.Context, src Source, st *cluster.State, namespace string) (*appsv1.Deployment, []string, error)

// Config is what a read-only command hands the pipeline.
type Config struct {
	// Readiness is the plan's assumption of when pods become available.
	Readiness planner.Readiness
	// Timing is the timed model's input (Readiness timed only).
	Timing Timing
	// Change makes the desired Deployment; nil previews the state as it is (the rest of a
	// rollout in flight).
	Change ChangeFunc
	// FromManifest: Change applies a manifest (the offline check's input).
	FromManifest bool
	// Checks run on every plan; nil runs Checks().
	Checks []Check
	// Now is the preview's time (truncated to the second by the caller).
	Now time.Time
	// Parallel bounds the plans of one Source made at once (0: manifest.DefaultParallel).
	Parallel int
	// Feasibility names the feasibility checks run on every plan (feasibility.AllChecks'
	// names; nil or empty: none). Their objects are read once per Source and namespace.
	Feasibility []string

	reads checkReads
}

// Result is one Member's plan: the plan, the estimate of a timed plan (nil otherwise) and the
// warnings (the change's, then the checks' findings), or Err.
type Result struct {
	Member
	Plan     *planner.Plan
	Estimate *estimate.Estimate
	Warnings []string
	// Feasibility is the feasibility checks' outcome (nil when none ran). When the checks
	// replayed the plan with pods held back, Plan is that replayed plan.
	Feasibility *feasibility.Result
	Err         error
}

// Plan plans m read from src: the change (Config.Change) applied, the timing resolved, the
// controller simulated (planner.Simulate with Now zero: the change is made after the preview,
// so the new ReplicaSet is newer than every existing one) and the checks run. A Member that
// could not be read keeps its Err.
func (c *Config) Plan(ctx context.Context, src Source, m Member) Result {
	r := Result{Member: m, Err: m.Err}
	if r.Err != nil {
		return r
	}
	desired, warnings := m.State.Deployment, []string(nil)
	if c.Change != nil {
		if desired, warnings, r.Err = c.Change(ctx, src, m.State, m.Namespace); r.Err != nil {
			return r
		}
	}
	var timing *planner.Timing
	if r.Estimate, timing, r.Err = c.Timing.Resolve(ctx, c.Readiness, src, m.State, c.Now); r.Err != nil {
		return r
	}
	pin := planner.Input{Deployment: desired, ReplicaSets: m.State.ReplicaSets, Readiness: c.Readiness, Timing: timing}
	r.Plan, r.Err = planner.Simulate(pin)
	if r.Err != nil {
		r.Plan = nil
		return r
	}
	if r.Feasibility, r.Err = c.Feasible(ctx, src, m, pin); r.Err != nil {
		r.Plan = nil
		return r
	}
	if r.Feasibility != nil && r.Feasibility.Plan != nil {
		r.Plan = r.Feasibility.Plan
	}
	checks := c.Checks
	if checks == nil {
		checks = Checks()
	}
	in := Input{Source: src.Name(), Live: src.Live(), FromManifest: c.FromManifest && c.Change != nil, State: m.State, Desired: desired, Plan: r.Plan}
	r.Warnings = append(warnings, RunChecks(checks, in)...)
	return r
}

// PlanAll plans each of members (Plan), Config.Parallel at a time, in the members' order.
func (c *Config) PlanAll(ctx context.Context, src Source, members []Member) []Result {
	out := make([]Result, len(members))
	manifest.Each(ctx, len(members), c.Parallel, func(ctx context.Context, i int) {
		out[i] = c.Plan(ctx, src, members[i])
	})
	return out
}

// SourceResult is one Source's part of Run: its plans, or Err when nothing could be read
// from it (unreachable, credentials refused, a failed LIST).
type SourceResult struct {
	Source  string
	Results []Result
	Err     error
}

// Run selects sel from each Source and plans every Member, DefaultSources Sources at once.
// One SourceResult per Source, in the Sources' order; a Source that fails carries its error
// and the others are still planned.
func (c *Config) Run(ctx context.Context, sources []Source, sel Selection) []SourceResult {
	out := make([]SourceResult, len(sources))
	var g errgroup.Group
	g.SetLimit(DefaultSources)
	for i, src := range sources {
		g.Go(func() error {
			r := SourceResult{Source: src.Name()}
			members, err := src.Select(ctx, sel)
			if err != nil {
				r.Err = err
			} else {
				r.Results = c.PlanAll(ctx, src, members)
			}
			out[i] = r
			return nil
		})
	}
	_ = g.Wait()
	return out
}
