package driverun

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/drive"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
)

// HandBack is what the controller does once a Deployment drive holds is handed back at its
// current state: After is the Deployment after drive.HandBack (original strategy, paused as
// it was, the drive annotation removed), Plan the controller's rollout of it, Held the
// holder's line (drive.Held).
type HandBack struct {
	After *appsv1.Deployment
	Plan  *planner.Plan
	Held  string
}

// PreviewHandBack is the preview of `kubectl rollplan resume` on st when drive holds its
// Deployment (ok false otherwise: kubectl's unpause applies). kubectl's unpause patch would
// leave strategy Recreate set, and the controller would then scale every old ReplicaSet to
// 0 at once; the resume hands back instead. Errors: drive.HandBackPreview's, the planner's.
func PreviewHandBack(st *cluster.State, readiness planner.Readiness, now time.Time) (hb *HandBack, ok bool, err error) {
	if !drive.IsHeld(st.Deployment) {
		return nil, false, nil
	}
	after, err := drive.HandBackPreview(st.Deployment, st.ReplicaSets)
	if err != nil {
		return nil, true, err
	}
	plan, err := rollout.Plan(after, st.ReplicaSets, readiness)
	if err != nil {
		return nil, true, err
	}
	return &HandBack{After: after, Plan: plan, Held: drive.Held(st.Deployment, now)}, true, nil
}
