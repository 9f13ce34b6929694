package stall

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// sts is a StatefulSet owner of the test pods (their controller UID is rs-uid).
func sts(want int32) Owner {
	return Owner{Kind: "StatefulSet", Namespace: "shop", Name: "web", UID: "rs-uid", Want: want}
}

func TestDiagnoseOwner(t *testing.T) {
	const quota = `create Pod web-2 in StatefulSet web failed error: pods "web-2" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2`
	unsched := cond(corev1.PodScheduled, corev1.ConditionFalse, corev1.PodReasonUnschedulable, "0/3 nodes are available: 3 Insufficient cpu.", 7)
	tests := []struct {
		name string
		in   OwnerInput
		want []Reason
	}{{
		name: "a replaced pod refused by a quota: the owner's latest FailedCreate event, the pods missing",
		in: OwnerInput{Owner: sts(3), Pods: []*corev1.Pod{pod("web-0", 0, ready), pod("web-1", 1, ready)},
			Events: []*corev1.Event{event("StatefulSet", "web", FailedCreate, "older", 2, 3), event("StatefulSet", "web", FailedCreate, quota, 4, 9)}},
		want: []Reason{{Reason: FailedCreate, Pods: 1, Message: quota, Since: at(4).Time, Object: "web"}},
	}, {
		name: "an event older than the newest pod (the create succeeded since): no reason",
		in: OwnerInput{Owner: sts(2), Pods: []*corev1.Pod{pod("web-0", 0, ready), pod("web-1", 10, onNode("n1"), waiting("ContainerCreating", "", 0))},
			Events: []*corev1.Event{event("StatefulSet", "web", FailedCreate, quota, 4, 9)}},
	}, {
		name: "another owner's event, or every pod there: no FailedCreate",
		in: OwnerInput{Owner: sts(3), Pods: []*corev1.Pod{pod("web-0", 0, ready), pod("web-1", 1, ready)},
			Events: []*corev1.Event{event("DaemonSet", "web", FailedCreate, quota, 4, 9), event("StatefulSet", "db", FailedCreate, quota, 4, 9)}},
	}, {
		name: "a Pending pod the scheduler cannot place: its Unschedulable message",
		in:   OwnerInput{Owner: sts(2), Pods: []*corev1.Pod{pod("web-0", 0, ready), pod("web-1", 5, unsched)}},
		want: []Reason{{Reason: Unschedulable, Pods: 1, Message: "0/3 nodes are available: 3 Insufficient cpu.", Since: at(7).Time, Object: "web-1"}},
	}, {
		name: "a pod being deleted does not count as there",
		in: OwnerInput{Owner: sts(2), Pods: []*corev1.Pod{pod("web-0", 0, ready), pod("web-1", 1, func(p *corev1.Pod) { p.DeletionTimestamp = ptrTime(at(2)) })},
			Events: []*corev1.Event{event("StatefulSet", "web", FailedCreate, quota, 4, 9)}},
		want: []Reason{{Reason: FailedCreate, Pods: 1, Message: quota, Since: at(4).Time, Object: "web"}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, DiagnoseOwner(tt.in, at(20).Time)); diff != "" {
				t.Errorf("DiagnoseOwner (-want +got):\n%s", diff)
			}
		})
	}
}

func ptrTime(t metav1.Time) *metav1.Time { return &t }

// TestReadOwner: the owner's FailedCreate events are listed only while pods are missing.
func TestReadOwner(t *testing.T) {
	ev := event("StatefulSet", "web", FailedCreate, "refused", 4, 9)
	ev.Namespace, ev.Name = "shop", "web.1"
	c := fake.NewClientset(ev)
	in := ReadOwner(context.Background(), c, sts(2), []*corev1.Pod{pod("web-0", 0, ready), pod("web-1", 1, ready)})
	if got := reads(c); len(got) != 0 || in.Events != nil {
		t.Errorf("every pod there: reads %v, events %v; want none", got, in.Events)
	}
	in = ReadOwner(context.Background(), c, sts(3), []*corev1.Pod{pod("web-0", 0, ready), pod("web-1", 1, ready)})
	if got := reads(c); len(got) != 1 || len(in.Events) != 1 {
		t.Fatalf("a pod missing: reads %v, events %d; want one LIST of events and the event", got, len(in.Events))
	}
	if got := DiagnoseOwner(in, at(20).Time); len(got) != 1 || got[0].Message != "refused" {
		t.Errorf("DiagnoseOwner = %v, want the FailedCreate event's message", got)
	}
}
