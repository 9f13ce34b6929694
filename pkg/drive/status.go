package drive

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/deployutil"
)

// Status builds the status object of snap at now (kind DriveStatus, what `drive status`
// shows; printer.PrintDriveStatus renders it for people): who holds the Deployment, every
// ReplicaSet's role and counts, and, when held, the bounds and the next step of the plan
// from the current state.
func Status(snap *Snapshot, now time.Time) *v1alpha1.DriveStatus {
	d := snap.Deployment
	r := &v1alpha1.DriveStatus{
		TypeMeta:  metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "DriveStatus"},
		Namespace: d.Namespace, Name: d.Name, Held: snap.State != nil, State: apiState(snap.State),
		Paused: d.Spec.Paused, Strategy: describeStrategy(d.Spec.Strategy)}
	s := snap.State
	if s != nil {
		r.Driving = s.LeaseValid(now)
		r.Edits = specEdits(d, snap, s)
	}
	newName := ""
	if rs := deployutil.FindNewReplicaSet(d, snap.ReplicaSets); rs != nil {
		newName = rs.Name
	}
	for _, rs := range snap.ReplicaSets {
		role := "old"
		switch {
		case s != nil && rs.Name == s.NewReplicaSet, s == nil && rs.Name == newName:
			role = "new"
		case s != nil && rs.Name == s.PreviousReplicaSet:
			role = "previous"
		}
		var images []string
		for _, c := range rs.Spec.Template.Spec.Containers {
			images = append(images, c.Image)
		}
		r.ReplicaSets = append(r.ReplicaSets, v1alpha1.DriveReplicaSet{Name: rs.Name, Role: role, Revision: revisionOf(rs),
			Replicas: replicas(rs), Current: rs.Status.Replicas, Ready: rs.Status.ReadyReplicas, Available: rs.Status.AvailableReplicas, Images: images})
	}
	if s == nil {
		return r
	}
	b := s.Bounds()
	if rep := ptr.Deref(d.Spec.Replicas, 1); rep != s.Replicas && !s.PendingReplicas {
		if nb, err := ResolveBounds(rep, s.OriginalStrategy); err == nil {
			b = nb
		}
	}
	r.Bounds = &v1alpha1.DriveBounds{Replicas: b.Replicas, MaxSurge: b.MaxSurge, MaxUnavailable: b.MaxUnavailable}
	steps, err := PlanSteps(b, snap.Start())
	if err != nil {
		r.Problem = err.Error()
		return r
	}
	r.StepsLeft = len(steps)
	if len(steps) > 0 {
		next := APIStep(steps[0])
		r.Next = &next
	}
	return r
}

// DescribeStrategy says strategy in the words of drive's messages and status:
// "RollingUpdate maxSurge 25% maxUnavailable 25%", or the type alone ("Recreate").
func DescribeStrategy(strategy appsv1.DeploymentStrategy) string { return describeStrategy(strategy) }

// APIStep returns st as the versioned object's step (v1alpha1.DriveStep), slices copied.
func APIStep(st Step) v1alpha1.DriveStep {
	return v1alpha1.DriveStep{
		Number: st.Number, Create: st.Create, New: apiScale(st.New), WaitAvailable: st.WaitAvailable,
		Old: apiScales(st.Old), Pods: st.Pods, ExtraPod: st.ExtraPod,
		AvailableBefore: st.AvailableBefore, AvailableAfter: st.AvailableAfter, KeptOld: st.KeptOld,
		After: v1alpha1.DriveStart{New: v1alpha1.DriveCounts(st.After.New), NewExists: st.After.NewExists, Old: apiCounts(st.After.Old)},
	}
}

func apiScale(s Scale) v1alpha1.DriveScale { return v1alpha1.DriveScale(s) }

// apiScales keeps a nil slice nil (JSON null), as the object had it before it was versioned.
func apiScales(in []Scale) []v1alpha1.DriveScale {
	if in == nil {
		return nil
	}
	out := make([]v1alpha1.DriveScale, len(in))
	for i, s := range in {
		out[i] = apiScale(s)
	}
	return out
}

func apiCounts(in []Counts) []v1alpha1.DriveCounts {
	if in == nil {
		return nil
	}
	out := make([]v1alpha1.DriveCounts, len(in))
	for i, c := range in {
		out[i] = v1alpha1.DriveCounts(c)
	}
	return out
}

// apiState returns s as the versioned object's state; the times keep their nanoseconds.
func apiState(s *State) *v1alpha1.DriveState {
	if s == nil {
		return nil
	}
	return &v1alpha1.DriveState{
		Version: s.Version, PlanID: s.PlanID, Phase: string(s.Phase),
		OriginalStrategy: *s.OriginalStrategy.DeepCopy(), OriginalPaused: s.OriginalPaused,
		TargetHash: s.TargetHash, NewReplicaSet: s.NewReplicaSet, PreviousReplicaSet: s.PreviousReplicaSet, Revision: s.Revision,
		Replicas: s.Replicas, MaxSurge: s.MaxSurge, MaxUnavailable: s.MaxUnavailable, PendingReplicas: s.PendingReplicas,
		Step: s.Step, Steps: s.Steps, Generation: s.Generation,
		Holder: s.Holder, LeaseExpires: apiTime(s.LeaseExpires), LastHolder: s.LastHolder,
		StartedAt: v1alpha1.NewTimestamp(s.StartedAt), UpdatedAt: v1alpha1.NewTimestamp(s.UpdatedAt),
		HeldSince: apiTime(s.HeldSince), HeldReason: s.HeldReason, Adopted: s.Adopted,
	}
}

func apiTime(t *time.Time) *v1alpha1.Timestamp {
	if t == nil {
		return nil
	}
	ts := v1alpha1.NewTimestamp(*t)
	return &ts
}

// Held is a short description of who holds d, for other commands' messages ("" if not held).
func Held(d *appsv1.Deployment, now time.Time) string {
	s, err := ReadState(d)
	if err != nil || s == nil {
		return ""
	}
	if s.LeaseValid(now) {
		return fmt.Sprintf("held by kubectl rollplan drive, driven now by %s (step %d of %d)", s.Holder, s.Step, s.Steps)
	}
	return fmt.Sprintf("held by kubectl rollplan drive at step %d of %d (no driver running)", s.Step, s.Steps)
}
