package status

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// TestNeedsDiagnosis: reads happen only for a rollout that made no progress for
// DiagnoseEvery and whose new ReplicaSet lacks available pods (or reports a ReplicaFailure).
func TestNeedsDiagnosis(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	rs := func(replicas, available int32, failure bool) *appsv1.ReplicaSet {
		r := &appsv1.ReplicaSet{Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To(replicas)}, Status: appsv1.ReplicaSetStatus{AvailableReplicas: available}}
		if failure {
			r.Status.Conditions = []appsv1.ReplicaSetCondition{{Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue}}
		}
		return r
	}
	stuck := Status{Phase: PhaseProgressing, LastProgressAt: now.Add(-3 * time.Second)}
	for _, tc := range []struct {
		name string
		s    Status
		rs   *appsv1.ReplicaSet
		want bool
	}{
		{"no progress for 3s, 1 of 3 available", stuck, rs(3, 1, false), true},
		{"no progress for 3s, all available", stuck, rs(3, 3, false), false},
		{"no progress for 3s, all available but a ReplicaFailure", stuck, rs(3, 3, true), true},
		{"progress 1s ago", Status{Phase: PhaseProgressing, LastProgressAt: now.Add(-time.Second)}, rs(3, 1, false), false},
		{"complete", Status{Phase: PhaseComplete}, rs(3, 1, false), false},
		{"paused by a user", Status{Phase: PhaseProgressing, Paused: true}, rs(3, 1, false), false},
		{"paused, held by drive", Status{Phase: PhaseProgressing, Paused: true, HeldBy: "drive"}, rs(3, 1, false), true},
		{"past its deadline", Status{Phase: PhaseFailed}, rs(3, 1, false), true},
		{"no new ReplicaSet yet", stuck, nil, false},
	} {
		if got := needsDiagnosis(&tc.s, tc.rs, now); got != tc.want {
			t.Errorf("%s: needsDiagnosis = %v, want %v", tc.name, got, tc.want)
		}
	}
}
