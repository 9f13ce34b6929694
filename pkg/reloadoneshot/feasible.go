package reloadoneshot

import (
	"context"

	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// CheckFeasible runs the feasibility checks named by checks (a valid --checks value) on the
// plan of each restart of targets (Check with the pipeline's Feasible, the objects
// read through client once per namespace): reload's restarts and the config restarts a
// preview of ConfigMap and Secret manifests shows. Nothing with --checks=none.
func CheckFeasible(ctx context.Context, client kubernetes.Interface, checks string, readiness planner.Readiness, targets []*Target) error {
	names, _ := feasibility.ParseChecks(checks) // Validate refused a bad value
	if len(names) == 0 {
		return nil
	}
	pcfg := &pipeline.Config{Feasibility: names}
	src := pipeline.NewLive("", "", func() (kubernetes.Interface, error) { return client, nil })
	return Check(ctx, targets, readiness, func(ctx context.Context, st *cluster.State, in planner.Input) (*feasibility.Result, error) {
		m := pipeline.Member{State: st}
		m.Namespace, m.Name = st.Deployment.Namespace, st.Deployment.Name
		return pcfg.Feasible(ctx, src, m, in)
	})
}

// Stalls says whether the plan of a restart of targets (not refused) ends Stalled, by
// the controller's model or the feasibility checks: --fail-on-stall's exit 3.
func Stalls(targets []*Target) bool {
	for _, t := range targets {
		if t.Plan == nil || t.Refusal() != nil {
			continue
		}
		if t.Plan.Outcome == planner.OutcomeStalled || (t.Feasibility != nil && t.Feasibility.Stall != nil) {
			return true
		}
	}
	return false
}
