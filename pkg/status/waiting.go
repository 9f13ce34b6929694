package status

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// waiting sets Waiting (what the controller waits for now) and Next (the next write).
//
// In this order: nothing once complete or failed; the controller to observe the spec; a
// paused Deployment; a write the controller makes at its next sync without any pod
// becoming available (the plan from the live state under ReadinessNever has a first step);
// old pods terminating; pods becoming available before the next write of the plan from
// the live state (batched); the last new pods becoming available.
func (s *Status) waiting(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) {
	switch {
	case s.Phase == PhaseComplete:
		return
	case s.Phase == PhaseFailed:
		s.Waiting = "nothing: the controller gave up on the rollout (Progressing=False, ProgressDeadlineExceeded); it rolls out again after a change of the pod template, or kubectl rollout undo"
		return
	case d.Generation > d.Status.ObservedGeneration:
		s.Waiting = fmt.Sprintf("the controller to observe generation %d (observed %d)", d.Generation, d.Status.ObservedGeneration)
		return
	case d.Spec.Paused:
		s.Waiting = "nothing: the Deployment is paused; the rollout goes on after kubectl rollplan resume (or kubectl rollout resume)"
		return
	}
	if found, now := s.next(d, rss, planner.ReadinessNever); found && now {
		s.Waiting = fmt.Sprintf("its next sync, which writes %s without waiting for pods", s.Next)
		return
	}
	s.Next = nil
	s.next(d, rss, planner.ReadinessBatched)
	newReplicas, newAvailable := newCounts(d, rss)
	gone := terminating(d, rss)
	switch {
	case gone > 0 && s.Next != nil:
		s.Waiting = fmt.Sprintf("%d old %s to terminate before %s", gone, pods(gone), s.verb())
	case s.Next != nil:
		s.Waiting = fmt.Sprintf("%d of %d new pods available; waiting for availability before %s", newAvailable, newReplicas, s.verb())
		if s.Strategy.Type == appsv1.RollingUpdateDeploymentStrategyType {
			s.Waiting += fmt.Sprintf(" (%d of %d pods available; the controller keeps at least %d)",
				s.Available, s.Total, max(0, s.Replicas-s.Strategy.MaxUnavailable))
		}
	case newAvailable < newReplicas:
		s.Waiting = fmt.Sprintf("%d of %d new pods available; waiting for the rest, then the rollout is complete", newAvailable, newReplicas)
	case gone > 0:
		s.Waiting = fmt.Sprintf("%d old %s to terminate, then the rollout is complete", gone, pods(gone))
	default:
		s.Waiting = "the controller to update the Deployment's status"
	}
}

// verb describes Next: "scaling old down (web-1 10 -> 8)", "scaling new up (...)",
// "creating the new ReplicaSet (...)".
func (s *Status) verb() string {
	w := s.Next
	switch {
	case w.Create:
		return fmt.Sprintf("creating the new ReplicaSet (%s)", w)
	case w.ReplicaSet == s.NewReplicaSet && w.To > w.From:
		return fmt.Sprintf("scaling new up (%s)", w)
	case w.ReplicaSet == s.NewReplicaSet:
		return fmt.Sprintf("scaling new down (%s)", w)
	case w.To < w.From:
		return fmt.Sprintf("scaling old down (%s)", w)
	}
	return fmt.Sprintf("scaling old up (%s)", w)
}

func pods(n int32) string {
	if n == 1 {
		return "pod"
	}
	return "pods"
}
