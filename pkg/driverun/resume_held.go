package driverun

import (
	"context"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/drive"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
)

// ResumeHeld is `kubectl rollplan resume` of a Deployment drive holds: Preview shows what the
// controller does once it is handed back at its current state (PreviewHandBack), and
// HandBack then (unless a dry run) makes drive's guarded hand-back write (drive.HandBack,
// waiting until the controller has observed it).
type ResumeHeld struct {
	Readiness planner.Readiness
	Now       func() time.Time
	// DryRun writes nothing.
	DryRun bool
	// Show prints the hand-back's preview of ref.
	Show func(ref rollout.Object, hb *HandBack) error
	// Progress is told the hand-back's events.
	Progress func(drive.Event)
}

// Preview is pipeline.ActionRun.Held: whether st's Deployment is held by drive, having shown
// its hand-back. Errors: PreviewHandBack's, Show's.
func (r *ResumeHeld) Preview(st *cluster.State, ref rollout.Object) (bool, error) {
	hb, ok, err := PreviewHandBack(st, r.Readiness, r.Now())
	if !ok || err != nil {
		return ok, err
	}
	return true, r.Show(ref, hb)
}

// HandBack hands the held Deployment ref back (drive.HandBack), unless DryRun.
func (r *ResumeHeld) HandBack(ctx context.Context, client kubernetes.Interface, ref rollout.Object) error {
	if r.DryRun {
		return nil
	}
	_, err := drive.HandBack(ctx, client, ref.Namespace, ref.Name, drive.HandBackOptions{Wait: true, Progress: r.Progress, Now: r.Now})
	return err
}
