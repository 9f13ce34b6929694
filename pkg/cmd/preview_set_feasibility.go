package cmd

import (
	"context"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// setFeasible is manifest.Config.Feasible of a set planned against src: the pipeline's
// feasibility checks (--checks), their objects read once per namespace. Offline (read, the
// state file's Read, non-nil) a Deployment the set creates is checked against the objects the
// state file holds for its namespace (those of any of its Deployments there). nil without
// checks.
func (o *PreviewOptions) setFeasible(src pipeline.Source, read func(context.Context, string) ([]cluster.Member, error)) func(context.Context, *cluster.State, planner.Input) (*feasibility.Result, error) {
	checks, _ := feasibility.ParseChecks(o.Checks) // Validate refused a bad value
	if len(checks) == 0 {
		return nil
	}
	pcfg := &pipeline.Config{Feasibility: checks}
	return func(ctx context.Context, live *cluster.State, in planner.Input) (*feasibility.Result, error) {
		ns := in.Deployment.Namespace
		if live == nil && read != nil {
			live = stateFileObjects(ctx, read, ns)
		}
		return pcfg.Feasible(ctx, src, pipeline.Member{Ref: target.Ref{Namespace: ns, Name: in.Deployment.Name}, State: live}, in)
	}
}

// stateFileObjects is a State carrying only the state file's check objects of namespace ns
// (nil: the file has no Deployment there).
func stateFileObjects(ctx context.Context, read func(context.Context, string) ([]cluster.Member, error), ns string) *cluster.State {
	members, err := read(ctx, ns)
	if err != nil {
		return nil
	}
	for _, m := range members {
		if m.State != nil && m.State.CheckObjects != nil {
			return &cluster.State{CheckObjects: m.State.CheckObjects}
		}
	}
	return nil
}
