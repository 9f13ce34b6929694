package stall

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

var t0 = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func at(s int) metav1.Time { return metav1.NewTime(t0.Add(time.Duration(s) * time.Second)) }

func newRS(replicas, have int32) *appsv1.ReplicaSet {
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "web-2", Namespace: "shop", UID: "rs-uid"},
		Spec:       appsv1.ReplicaSetSpec{Replicas: ptr.To(replicas)},
		Status:     appsv1.ReplicaSetStatus{Replicas: have},
	}
}

// pod is a pod of newRS created at second created, with its options applied.
func pod(name string, created int, opts ...func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop", UID: types.UID(name), CreationTimestamp: at(created),
		OwnerReferences: []metav1.OwnerReference{{Kind: "ReplicaSet", Name: "web-2", UID: "rs-uid", Controller: ptr.To(true)}}},
		Status: corev1.PodStatus{Phase: corev1.PodPending}}
	for _, o := range opts {
		o(p)
	}
	return p
}

func cond(t corev1.PodConditionType, s corev1.ConditionStatus, reason, msg string, since int) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: t, Status: s, Reason: reason, Message: msg, LastTransitionTime: at(since)})
	}
}

func onNode(n string) func(*corev1.Pod) { return func(p *corev1.Pod) { p.Spec.NodeName = n } }

func waiting(reason, msg string, restarts int32) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{Name: "app", RestartCount: restarts,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: msg}}})
	}
}

func running(p *corev1.Pod) {
	p.Status.Phase = corev1.PodRunning
	p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{Name: "app",
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: p.CreationTimestamp}}})
}

func ready(p *corev1.Pod) { running(p); cond(corev1.PodReady, corev1.ConditionTrue, "", "", 5)(p) }

func event(kind, name, reason, msg string, first, last int) *corev1.Event {
	return &corev1.Event{InvolvedObject: corev1.ObjectReference{Kind: kind, Name: name}, Reason: reason, Message: msg,
		FirstTimestamp: at(first), LastTimestamp: at(last)}
}

func node(name string, ready corev1.ConditionStatus, since int) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{
		{Type: corev1.NodeReady, Status: ready, Reason: "NodeStatusUnknown", Message: "Kubelet stopped posting node status.", LastTransitionTime: at(since)}}}}
}

func TestDiagnose(t *testing.T) {
	const quota = `pods "web-2-x" is forbidden: exceeded quota: q, requested: pods=1, used: pods=4, limited: pods=4`
	pull := `Back-off pulling image "web:nope"`
	tests := []struct {
		name string
		in   Input
		want []Reason
	}{{
		name: "every pod Ready or on its way: no reason",
		in: Input{ReplicaSet: newRS(3, 3), Pods: []*corev1.Pod{pod("a", 0, ready), pod("b", 1, onNode("n1"), waiting("ContainerCreating", "", 0)),
			pod("c", 2)}},
	}, {
		name: "quota: ReplicaFailure condition names the refusal, 2 of 3 pods missing",
		in: Input{ReplicaSet: func() *appsv1.ReplicaSet {
			rs := newRS(3, 1)
			rs.Status.Conditions = []appsv1.ReplicaSetCondition{{Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue,
				Reason: "FailedCreate", Message: quota, LastTransitionTime: at(3)}}
			return rs
		}(), Pods: []*corev1.Pod{pod("a", 0, ready)}},
		want: []Reason{{Reason: FailedCreate, Pods: 2, Message: quota, Since: t0.Add(3 * time.Second), Object: "web-2"}},
	}, {
		name: "quota from the latest FailedCreate event newer than the newest pod; an older one ignored",
		in: Input{ReplicaSet: newRS(3, 1), Pods: []*corev1.Pod{pod("a", 10, ready)}, Events: []*corev1.Event{
			event("ReplicaSet", "web-2", FailedCreate, "old refusal", 0, 5),
			event("ReplicaSet", "web-2", FailedCreate, quota, 11, 40),
			event("ReplicaSet", "web-1", FailedCreate, "another ReplicaSet", 11, 50)}},
		want: []Reason{{Reason: FailedCreate, Pods: 2, Message: quota, Since: t0.Add(11 * time.Second), Object: "web-2"}},
	}, {
		name: "FailedCreate events are old news once the ReplicaSet has its pods",
		in: Input{ReplicaSet: newRS(1, 1), Pods: []*corev1.Pod{pod("a", 10)}, Events: []*corev1.Event{
			event("ReplicaSet", "web-2", FailedCreate, quota, 11, 40)}},
	}, {
		name: "unschedulable: the scheduler's message, since the earliest PodScheduled=False",
		in: Input{ReplicaSet: newRS(2, 2), Pods: []*corev1.Pod{
			pod("b", 0, cond(corev1.PodScheduled, corev1.ConditionFalse, "Unschedulable", "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.", 2)),
			pod("a", 0, cond(corev1.PodScheduled, corev1.ConditionFalse, "Unschedulable", "0/3 nodes are available: 3 Insufficient cpu.", 4)),
		}},
		want: []Reason{{Reason: Unschedulable, Pods: 2, Message: "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.",
			Since: t0.Add(2 * time.Second), Object: "b"}},
	}, {
		name: "ImagePullBackOff (2) and ErrImagePull (1) counted apart, most pods first; since when Ready turned False",
		in: Input{ReplicaSet: newRS(3, 3), Pods: []*corev1.Pod{
			pod("a", 0, onNode("n1"), waiting("ImagePullBackOff", pull, 0), cond(corev1.PodReady, corev1.ConditionFalse, "ContainersNotReady", "", 1)),
			pod("b", 2, onNode("n1"), waiting("ErrImagePull", "rpc error: not found", 0)),
			pod("c", 3, onNode("n2"), waiting("ImagePullBackOff", pull, 0)),
		}},
		want: []Reason{
			{Reason: "ImagePullBackOff", Pods: 2, Message: pull, Since: t0.Add(1 * time.Second), Object: "a"},
			{Reason: "ErrImagePull", Pods: 1, Message: "rpc error: not found", Since: t0.Add(2 * time.Second), Object: "b"},
		},
	}, {
		name: "CrashLoopBackOff: highest restart count, since the pod's creation (readiness flips at each restart)",
		in: Input{ReplicaSet: newRS(2, 2), Pods: []*corev1.Pod{
			pod("a", 5, onNode("n1"), waiting("CrashLoopBackOff", "back-off 40s restarting failed container=app", 4), cond(corev1.PodReady, corev1.ConditionFalse, "", "", 60)),
			pod("b", 6, onNode("n1"), waiting("CrashLoopBackOff", "back-off 20s restarting failed container=app", 3)),
		}},
		want: []Reason{{Reason: "CrashLoopBackOff", Pods: 2, Restarts: 4, Message: "back-off 40s restarting failed container=app", Since: t0.Add(5 * time.Second), Object: "a"}},
	}, {
		name: "init container first; a terminated container with exit code 1 is Error",
		in: Input{ReplicaSet: newRS(2, 2), Pods: []*corev1.Pod{
			pod("a", 0, onNode("n1"), func(p *corev1.Pod) {
				p.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "init", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CreateContainerConfigError", Message: `secret "db" not found`}}}}
			}, waiting("PodInitializing", "", 0)),
			pod("b", 0, onNode("n1"), func(p *corev1.Pod) {
				p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1}}}}
			}),
		}},
		want: []Reason{
			{Reason: "CreateContainerConfigError", Pods: 1, Message: `secret "db" not found`, Since: t0, Object: "a"},
			{Reason: "Error", Pods: 1, Message: "container app exited with code 1", Since: t0, Object: "b"},
		},
	}, {
		name: "readiness probe: running, not Ready, the probe's message from the latest Unhealthy event",
		in: Input{ReplicaSet: newRS(2, 2), Pods: []*corev1.Pod{
			pod("a", 0, onNode("n1"), running, cond(corev1.PodReady, corev1.ConditionFalse, "ContainersNotReady", "", 8)),
			pod("b", 0, onNode("n1"), ready),
		}, Events: []*corev1.Event{
			event("Pod", "a", Unhealthy, "Readiness probe failed: HTTP probe failed with statuscode: 500", 9, 20),
			event("Pod", "a", Unhealthy, "Readiness probe failed: connection refused", 8, 9),
			event("Pod", "b", Unhealthy, "not this pod", 8, 30),
		}},
		want: []Reason{{Reason: Unhealthy, Pods: 1, Message: "Readiness probe failed: HTTP probe failed with statuscode: 500", Since: t0.Add(8 * time.Second), Object: "a"}},
	}, {
		name: "readiness probe without an event: the ContainersReady condition's message",
		in: Input{ReplicaSet: newRS(1, 1), Pods: []*corev1.Pod{
			pod("a", 0, onNode("n1"), running, cond(corev1.ContainersReady, corev1.ConditionFalse, "ContainersNotReady", "containers with unready status: [app]", 2)),
		}},
		want: []Reason{{Reason: Unhealthy, Pods: 1, Message: "readiness probe failing: containers with unready status: [app]", Since: t0, Object: "a"}},
	}, {
		name: "pods lost with their node: one deleted, one NotReady since 30s",
		in: Input{ReplicaSet: newRS(3, 3), Pods: []*corev1.Pod{
			pod("a", 0, onNode("gone"), running, cond(corev1.PodReady, corev1.ConditionFalse, "", "", 20)),
			pod("b", 0, onNode("sick"), running, cond(corev1.PodReady, corev1.ConditionFalse, "", "", 40)),
			pod("c", 0, onNode("ok"), ready),
		}, Nodes: map[string]*corev1.Node{"gone": nil, "sick": node("sick", corev1.ConditionUnknown, 30), "ok": node("ok", corev1.ConditionTrue, 0)}},
		want: []Reason{{Reason: NodeLost, Pods: 2, Message: "node gone was deleted", Since: t0.Add(20 * time.Second), Object: "a"}},
	}, {
		name: "pods of other ReplicaSets and pods being deleted do not count",
		in: Input{ReplicaSet: newRS(1, 1), Pods: []*corev1.Pod{
			pod("other", 0, waiting("ImagePullBackOff", pull, 0), func(p *corev1.Pod) { p.OwnerReferences[0].UID = "other" }),
			pod("going", 0, waiting("ImagePullBackOff", pull, 0), func(p *corev1.Pod) { p.DeletionTimestamp = ptr.To(at(1)) }),
		}},
	}, {
		name: "a Since ahead of now (another clock) is now",
		in: Input{ReplicaSet: newRS(1, 1), Pods: []*corev1.Pod{
			pod("a", 500, waiting("ImagePullBackOff", pull, 0)),
		}},
		want: []Reason{{Reason: "ImagePullBackOff", Pods: 1, Message: pull, Since: t0.Add(100 * time.Second), Object: "a"}},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Diagnose(tc.in, t0.Add(100*time.Second))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Diagnose (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStuck(t *testing.T) {
	rs := []Reason{
		{Reason: "ImagePullBackOff", Pods: 2, Since: t0},
		{Reason: Unschedulable, Pods: 1, Since: t0.Add(20 * time.Second)},
		{Reason: FailedCreate, Pods: 1},
	}
	// At t0+31s with --fail-fast-after 30s: only the image pull has lasted 30s (its Since,
	// in whole seconds, counts from the end of that second); a reason without a Since
	// never fails fast.
	got := Stuck(rs, t0.Add(31*time.Second), 30*time.Second)
	if diff := cmp.Diff(rs[:1], got); diff != "" {
		t.Errorf("Stuck (-want +got):\n%s", diff)
	}
	if got := Stuck(rs, t0.Add(30900*time.Millisecond), 30*time.Second); len(got) != 0 {
		t.Errorf("Stuck at 30.9s = %v, want none", got)
	}
	// A Since with sub-second precision (a MicroTime: eventTime) counts as it is.
	precise := []Reason{{Reason: FailedCreate, Pods: 1, Since: t0.Add(500 * time.Millisecond)}}
	if got := Stuck(precise, t0.Add(30500*time.Millisecond), 30*time.Second); len(got) != 1 {
		t.Errorf("Stuck of a precise Since = %v, want it", got)
	}
}

func TestReasonString(t *testing.T) {
	for _, tc := range []struct {
		r    Reason
		want string
	}{
		{Reason{Reason: "ImagePullBackOff", Pods: 3, Message: `Back-off pulling image "web:nope"`}, `3 pods ImagePullBackOff: Back-off pulling image "web:nope"`},
		{Reason{Reason: "CrashLoopBackOff", Pods: 1, Restarts: 5, Message: "back-off 40s"}, "1 pod CrashLoopBackOff (5 restarts): back-off 40s"},
		{Reason{Reason: FailedCreate, Pods: 2, Message: "exceeded quota"}, "FailedCreate (2 pods not created): exceeded quota"},
		{Reason{Reason: Unhealthy, Pods: 1}, "1 pod Unhealthy"},
	} {
		if got := tc.r.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
}
