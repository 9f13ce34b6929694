package cmd

import (
	"context"

	"k8s.io/client-go/kubernetes"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/pkg/drive"
	"github.com/rollplan/kubectl-rollplan/pkg/driverun"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
)

// heldOperation is the result word of resume on a Deployment drive holds.
const heldOperation = "handed back by drive"

// previewHeld handles the preview of `kubectl rollplan resume` on a Deployment held by
// drive, and reports whether it did: it shows what the controller does once the Deployment
// is handed back at its current state (driverun.PreviewHandBack); handBack then (unless a
// dry run) makes drive's guarded hand-back write (drive.HandBack).
func (o *ActionOptions) previewHeld(state *pipeline.State, ref rollout.Object) (bool, error) {
	if o.Verb != rollout.VerbResume {
		return false, nil
	}
	hb, ok, err := driverun.PreviewHandBack(state, o.readiness(), o.Now())
	if !ok || err != nil {
		return ok, err
	}
	return true, printer.PrintHandBackPreview(o.Out, ref.Namespace, ref.Name, hb.Held, hb.After, hb.Plan, printer.PlanOptions{MaxSteps: o.MaxSteps, ChartWidth: 30})
}

// handBack hands a held Deployment back (drive.HandBack), unless a dry run.
func (o *ActionOptions) handBack(ctx context.Context, client kubernetes.Interface, ref rollout.Object) error {
	if o.DryRun != cmdutil.DryRunNone {
		return nil
	}
	_, err := drive.HandBack(ctx, client, ref.Namespace, ref.Name, drive.HandBackOptions{Wait: true, Progress: printer.NewDriveProgress(o.ErrOut, false).Event, Now: o.Now})
	return err
}
