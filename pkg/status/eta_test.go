package status

import (
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
)

// podsOf returns n pods of rs created at created, Ready readyAfter later (readyAfter < 0:
// not Ready).
func podsOf(rs *appsv1.ReplicaSet, n int, created time.Time, readyAfter time.Duration) []*corev1.Pod {
	var out []*corev1.Pod
	for i := range n {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", rs.Name, i), Namespace: rs.Namespace,
			CreationTimestamp: metav1.NewTime(created),
			OwnerReferences:   []metav1.OwnerReference{*metav1.NewControllerRef(rs, appsv1.SchemeGroupVersion.WithKind("ReplicaSet"))}}}
		if readyAfter >= 0 {
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(created.Add(readyAfter))}}
		}
		out = append(out, p)
	}
	return out
}

// TestRestUnderTimedModel: measured on the pods (the old ones took 2 s), the 5 new pods
// created 1 s ago are Ready in 1 s, then the last 5 take 2 s: ETA 3 s. New pods not Ready
// after 10 s are overdue: no ETA, and why.
func TestRestUnderTimedModel(t *testing.T) {
	now := testutil.Time(60).Time
	d, rss := point{oldReplicas: 8, oldAvailable: 8, newReplicas: 5, observed: true}.state(testutil.RollingUpdate("25%", "25%"))
	st := &cluster.State{Deployment: d, ReplicaSets: rss}
	pods := append(podsOf(rss[0], 8, now.Add(-time.Hour), 2*time.Second), podsOf(rss[1], 5, now.Add(-time.Second), -1)...)
	rest, basis := RestUnderTimedModel(st, pods, nil, now)
	if rest == nil || basis != "pods Ready after 2s (median of 8 pods, 2s)" {
		t.Fatalf("basis %q (rest %v)", basis, rest != nil)
	}
	s := Compute(d, rss, now, Options{Rest: rest, RestBasis: basis})
	if !s.HasETA || s.ETA != 3*time.Second {
		t.Errorf("ETA %v (known %v), want 3s", s.ETA, s.HasETA)
	}
	pods = append(podsOf(rss[0], 8, now.Add(-time.Hour), 2*time.Second), podsOf(rss[1], 5, now.Add(-10*time.Second), -1)...)
	rest, basis = RestUnderTimedModel(st, pods, nil, now)
	if rest != nil || !strings.HasPrefix(basis, "none: 5 pods are not Ready after 10s, longer than the time model's pods Ready after 2s") {
		t.Errorf("overdue pods: rest %v, basis %q", rest != nil, basis)
	}
	s = Compute(d, rss, now, Options{Rest: rest, RestBasis: basis})
	if s.HasETA || s.ETABasis != basis {
		t.Errorf("overdue: ETA known %v, basis %q", s.HasETA, s.ETABasis)
	}
}
