package cmd

import (
	"context"

	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/reloadoneshot"
)

// checkRestarts runs the feasibility checks of --checks on each restart's plan, as preview
// does on its plans (restartChecks).
func (o *ReloadOptions) checkRestarts(ctx context.Context, client kubernetes.Interface, targets []*reloadoneshot.Target) error {
	return restartChecks(ctx, client, o.Checks, planner.Readiness(o.Readiness), targets)
}

// restartChecks is reloadoneshot.CheckFeasible: the feasibility checks of --checks on the plan
// of each restart (reload's, and the config restarts of preview).
var restartChecks = reloadoneshot.CheckFeasible

// restartsStall is reloadoneshot.Stalls: --fail-on-stall's exit 3.
var restartsStall = reloadoneshot.Stalls
