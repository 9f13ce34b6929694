package reloadoneshot

import (
	"context"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/reload"
)

// CheckFunc runs the feasibility checks on the planner's input of a Deployment read as st
// (pipeline.Config.Feasible of the cluster read); nil result: nothing to say.
type CheckFunc func(ctx context.Context, st *cluster.State, in planner.Input) (*feasibility.Result, error)

// Check runs check on the plan of every target that restarts (Action restart, a Plan, not
// refused): the restart's planner input (Desired over the ReplicaSets read, under
// readiness, as rollout.Plan plans it). It sets Target.Feasibility and, when the checks
// replayed the plan with pods held back (a quota refusing the surge pod), replaces
// Target.Plan with that replay. Errors: check's, the first one (the targets after it are
// left unchecked).
func Check(ctx context.Context, targets []*Target, readiness planner.Readiness, check CheckFunc) error {
	for _, t := range targets {
		if t.Action != reload.ActionRestart || t.Plan == nil || t.Refusal() != nil {
			continue
		}
		in := planner.Input{Deployment: t.Desired, ReplicaSets: t.State.ReplicaSets, Readiness: readiness}
		f, err := check(ctx, t.State, in)
		if err != nil {
			return err
		}
		t.Feasibility = f
		if f != nil && f.Plan != nil {
			t.Plan = f.Plan
		}
	}
	return nil
}
