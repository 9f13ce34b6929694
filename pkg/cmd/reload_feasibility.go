package cmd

import (
	"context"

	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/reload/oneshot"
)

// checkRestarts runs the feasibility checks of --checks on each restart's plan
// (oneshot.Check with the pipeline's Feasible, the objects read through client once per
// namespace), as preview does on its plans. Not with --checks=none.
func (o *ReloadOptions) checkRestarts(ctx context.Context, client kubernetes.Interface, targets []*oneshot.Target) error {
	checks, _ := feasibility.ParseChecks(o.Checks) // Validate refused a bad value
	if len(checks) == 0 {
		return nil
	}
	pcfg := &pipeline.Config{Feasibility: checks}
	src := pipeline.NewLive("", "", func() (kubernetes.Interface, error) { return client, nil })
	return oneshot.Check(ctx, targets, planner.Readiness(o.Readiness), func(ctx context.Context, st *cluster.State, in planner.Input) (*feasibility.Result, error) {
		m := pipeline.Member{State: st}
		m.Namespace, m.Name = st.Deployment.Namespace, st.Deployment.Name
		return pcfg.Feasible(ctx, src, m, in)
	})
}
