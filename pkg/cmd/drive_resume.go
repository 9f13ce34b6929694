package cmd

import (
	"context"

	"k8s.io/client-go/kubernetes"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/drive"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
)

// resumeHeld handles `kubectl rollplan resume` on a Deployment held by drive, and reports
// whether it did: kubectl's unpause patch would leave strategy Recreate set, and the
// controller would then scale every old ReplicaSet to 0 at once. Instead it shows what the
// controller does once the Deployment is handed back at its current state, and (unless a dry
// run) makes drive's guarded hand-back write (drive.HandBack): original strategy, paused as
// it was, the drive annotation removed.
func resumeHeld(ctx context.Context, o *ActionOptions, client kubernetes.Interface, state *cluster.State) (bool, error) {
	if o.Verb != rollout.VerbResume || !drive.IsHeld(state.Deployment) {
		return false, nil
	}
	after, err := drive.HandBackPreview(state.Deployment, state.ReplicaSets)
	if err != nil {
		return true, err
	}
	plan, err := rollout.Plan(after, state.ReplicaSets, o.readiness())
	if err != nil {
		return true, err
	}
	if err := printer.PrintHandBackPreview(o.Out, o.Namespace, o.Name, drive.Held(state.Deployment, o.Now()), after, plan, printer.PlanOptions{MaxSteps: o.MaxSteps, ChartWidth: 30}); err != nil {
		return true, err
	}
	if o.DryRun != cmdutil.DryRunNone {
		return true, printer.PrintResult(o.Out, o.Name, "handed back by drive", o.DryRun)
	}
	if _, err := drive.HandBack(ctx, client, o.Namespace, o.Name, drive.HandBackOptions{Wait: true, Progress: o.ErrOut, Now: o.Now}); err != nil {
		return true, err
	}
	return true, printer.PrintResult(o.Out, o.Name, "handed back by drive", cmdutil.DryRunNone)
}
