package cmd

import (
	"context"

	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// statusChecks returns status.Config.Feasible for checks (a valid --checks value): the
// pipeline's Feasible (pipeline.Config.Feasible) on the remaining plan, the objects read
// through client (the cluster's, one per call) once per namespace for the whole command (a
// --watch too: quotas' used counts are not re-read); nil with --checks=none.
func statusChecks(checks string, client func() (kubernetes.Interface, error)) func(context.Context, *cluster.State, planner.Input) (*feasibility.Result, error) {
	names, _ := feasibility.ParseChecks(checks) // Validate refused a bad value
	if len(names) == 0 {
		return nil
	}
	pcfg := &pipeline.Config{Feasibility: names}
	src := pipeline.NewLive("", "", client)
	return func(ctx context.Context, st *cluster.State, in planner.Input) (*feasibility.Result, error) {
		m := pipeline.Member{State: st}
		m.Namespace, m.Name = st.Deployment.Namespace, st.Deployment.Name
		return pcfg.Feasible(ctx, src, m, in)
	}
}

// validateChecks checks a --checks value (feasibility.ParseChecks).
func validateChecks(checks string) error {
	_, err := feasibility.ParseChecks(checks)
	return err
}
