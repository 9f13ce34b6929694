package partition

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestFromPods(t *testing.T) {
	ready := corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(t0)}
	now := metav1.NewTime(t0)
	mk := func(name, rev string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{appsv1.ControllerRevisionHashLabelKey: rev}}}
	}
	p0 := mk("db-0", "db-old")
	p0.Status.Conditions = []corev1.PodCondition{ready}
	p1 := mk("db-1", "db-new")
	p1.Status.ContainerStatuses = []corev1.ContainerStatus{{State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}}}}
	p2 := mk("db-2", "db-new")
	p2.DeletionTimestamp = &now
	other := mk("dbx-0", "x")
	bad := mk("db-abc", "x")
	got := FromPods("db", []*corev1.Pod{p0, p1, p2, other, bad})
	want := []Pod{{Ordinal: 0, Revision: "db-old", ReadySince: t0}, {Ordinal: 1, Revision: "db-new", Failed: true}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}
