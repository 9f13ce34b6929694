package pipeline

import (
	"context"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/rollplan/kubectl-rollplan/pkg/estimate"
	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
	"github.com/rollplan/kubectl-rollplan/pkg/stall"
	"github.com/rollplan/kubectl-rollplan/pkg/workload"
	"github.com/rollplan/kubectl-rollplan/pkg/workload/live"
)

// stsCluster is w, its revisions and pods as a fake cluster holds them (pods and revisions
// controlled by w), with extra objects.
func stsCluster(w workload.Workload, revs []*appsv1.ControllerRevision, pods []*corev1.Pod, extra ...runtime.Object) kubernetes.Interface {
	owner := *metav1.NewControllerRef(w.Meta(), appsv1.SchemeGroupVersion.WithKind("StatefulSet"))
	objs := append([]runtime.Object{w.Object()}, extra...)
	for _, r := range revs {
		r.Namespace, r.OwnerReferences = "ns", []metav1.OwnerReference{owner}
		r.Labels = map[string]string{"app": "web"}
		objs = append(objs, r)
	}
	for _, p := range pods {
		p.OwnerReferences = []metav1.OwnerReference{owner}
		objs = append(objs, p)
	}
	return fake.NewClientset(objs...)
}

// TestKindStatusQuotaRefusal: web (3 replicas, 100m each under a 300m quota) rolls to a
// template requesting 200m: the controller deleted web-2 and the API server refuses its
// replacement. status names the controller's FailedCreate event (its words), the checks
// predict the stall on the next write, no ETA (the rollout does not progress), and
// --fail-fast-after 10s fails fast on a refusal seen for a minute.
func TestKindStatusQuotaRefusal(t *testing.T) {
	w, revs, pods := stsMidRollout(t, true, 0)
	w.StatefulSet.Spec.Template.Spec.Containers[0].Resources.Requests = cpu("200m")
	for _, p := range pods {
		p.Spec.Containers = []corev1.Container{{Name: "c", Image: "v1", Resources: corev1.ResourceRequirements{Requests: cpu("100m")}}}
		p.Labels[appsv1.StatefulSetRevisionLabel] = revs[0].Name
	}
	pods = pods[:2]
	w.StatefulSet.Status.Replicas, w.StatefulSet.Status.ReadyReplicas = 2, 2
	const refusal = `create Pod web-2 in StatefulSet web failed error: pods "web-2" is forbidden: exceeded quota: compute, requested: requests.cpu=200m, used: requests.cpu=200m, limited: requests.cpu=300m`
	ev := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "web.1", Namespace: "ns"}, Reason: stall.FailedCreate, Message: refusal,
		InvolvedObject: corev1.ObjectReference{Kind: "StatefulSet", Name: "web", Namespace: "ns", UID: "u1"},
		FirstTimestamp: metav1.NewTime(kindNow.Add(-time.Minute)), LastTimestamp: metav1.NewTime(kindNow.Add(-time.Second))}
	cs := stsCluster(w, revs, pods, ev, computeQuota("300m", "200m"))
	r := NewKindStatusReader(func() (kubernetes.Interface, error) { return cs, nil }, KindStatusConfig{Checks: feasibility.AllChecks,
		FailFast: true, FailFastAfter: 10 * time.Second, Now: func() time.Time { return kindNow }})
	s, err := r.Read(context.Background(), w)
	if err != nil {
		t.Fatal(err)
	}
	if s.Verdict.Done || s.ProgressErr != nil || s.Progress == nil {
		t.Fatalf("verdict %+v, progress %+v, %v", s.Verdict, s.Progress, s.ProgressErr)
	}
	if len(s.Stalled) != 1 || s.Stalled[0].Reason != stall.FailedCreate || s.Stalled[0].Message != refusal || s.Stalled[0].Pods != 1 {
		t.Errorf("stalled %+v, want the FailedCreate event's refusal", s.Stalled)
	}
	if !s.FailedFast || !strings.Contains(KindFailFastMessage(s, 10*time.Second), `statefulset "web" does not progress: FailedCreate (1 pod not created): `+refusal+" (for 1m0s)") {
		t.Errorf("failed fast %v: %s", s.FailedFast, KindFailFastMessage(s, 10*time.Second))
	}
	if f := s.Feasibility; f == nil || f.Stall == nil || f.Stall.Step != 1 || f.Stall.Reason != feasibility.ReasonQuota {
		t.Errorf("feasibility %+v, want a quota stall at step 1 (the create of web-2)", f)
	}
	if s.HasETA || !strings.HasPrefix(s.ETABasis, "none: the rollout does not progress (FailedCreate") {
		t.Errorf("eta %v %v %q, want none: does not progress", s.HasETA, s.ETA, s.ETABasis)
	}
}

// TestKindStatusETA: web-2 runs the update revision and became Ready; web-0 and web-1 are
// left. Pods Ready 10s after creation (--pod-ready-after), no latency, OrderedReady from the
// highest ordinal: delete web-1, create it, 10s, delete web-0, create it, 10s: 20s. Measured
// on the pods instead (every pod Ready 4s after its creation): 8s.
func TestKindStatusETA(t *testing.T) {
	for _, tc := range []struct {
		name string
		flag *estimate.Estimate
		want time.Duration
	}{
		{"--pod-ready-after 10s", &estimate.Estimate{Source: estimate.SourceFlag, Min: 10 * time.Second, Median: 10 * time.Second, Max: 10 * time.Second}, 20 * time.Second},
		{"measured on the pods", nil, 8 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, revs, pods := stsMidRollout(t, true, 0)
			for _, p := range pods {
				p.CreationTimestamp = metav1.NewTime(kindNow.Add(-time.Minute))
				p.Status.Conditions[0].LastTransitionTime = metav1.NewTime(kindNow.Add(-time.Minute + 4*time.Second))
			}
			w.StatefulSet.Status.Replicas, w.StatefulSet.Status.ReadyReplicas = 3, 3
			cs := stsCluster(w, revs, pods)
			r := NewKindStatusReader(func() (kubernetes.Interface, error) { return cs, nil }, KindStatusConfig{ReadyAfter: tc.flag, Now: func() time.Time { return kindNow }})
			s, err := r.Read(context.Background(), w)
			if err != nil {
				t.Fatal(err)
			}
			if !s.HasETA || s.ETA != tc.want || len(s.Stalled) != 0 || s.Feasibility != nil {
				t.Errorf("eta %v %v (%s), stalled %v, feasibility %v; want %v", s.HasETA, s.ETA, s.ETABasis, s.Stalled, s.Feasibility, tc.want)
			}
		})
	}
}

// TestKindETADaemonSet: the DaemonSet's ETA comes from its timed model (one node, maxSurge 1:
// the surge pod is created at once and is the last updated pod, available ReadyAfter later);
// without --pod-ready-after and no Ready pod whose readiness time can be measured, none, and why.
func TestKindETADaemonSet(t *testing.T) {
	w, revs, pods, nodes := surgeFixture(t, "1", "0")
	m := KindMember{Ref: w.Ref(), State: &live.State{Workload: w, Revisions: revs, Pods: pods}, Nodes: nodes}
	ready := &estimate.Estimate{Source: estimate.SourceFlag, Min: 10 * time.Second, Median: 10 * time.Second, Max: 10 * time.Second}
	eta, ok, basis := KindETA(context.Background(), fakeLive(), m, KindStatusConfig{ReadyAfter: ready}, kindNow)
	if !ok || eta != 10*time.Second {
		t.Errorf("DaemonSet ETA with --pod-ready-after 10s: %v %v (%s), want 10s", ok, eta, basis)
	}
	_, ok, basis = KindETA(context.Background(), fakeLive(), m, KindStatusConfig{}, kindNow)
	if ok || basis != "none: no Ready pod to measure how long pods take (give --pod-ready-after)" {
		t.Errorf("DaemonSet ETA unmeasured: %v %q, want none naming the missing measure", ok, basis)
	}
}

// TestFollowRereads: with watch, Follow reads the status again while the rollout is in
// progress though the object does not change (a FailedCreate event arrives), and ends when
// kubectl's verdict is done.
func TestFollowRereads(t *testing.T) {
	w, revs, pods := stsMidRollout(t, true, 0)
	pods = pods[:2] // web-2 deleted, its replacement not created
	w.StatefulSet.Status.Replicas, w.StatefulSet.Status.ReadyReplicas = 2, 2
	w.StatefulSet.Generation, w.StatefulSet.Status.ObservedGeneration = 1, 1
	cs := stsCluster(w, revs, pods)
	r := NewKindStatusReader(func() (kubernetes.Interface, error) { return cs, nil }, KindStatusConfig{Now: func() time.Time { return kindNow }})
	stalled := make(chan struct{})
	var once bool
	done := make(chan error, 1)
	go func() {
		_, err := r.Follow(context.Background(), cs, w.Ref(), true, func(s *KindStatus) error {
			if len(s.Stalled) > 0 && !once {
				once = true
				close(stalled)
			}
			return nil
		})
		done <- err
	}()
	time.Sleep(300 * time.Millisecond)
	ev := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "web.1", Namespace: "ns"}, Reason: stall.FailedCreate, Message: "refused",
		InvolvedObject: corev1.ObjectReference{Kind: "StatefulSet", Name: "web", Namespace: "ns", UID: "u1"},
		FirstTimestamp: metav1.NewTime(kindNow.Add(-time.Second)), LastTimestamp: metav1.NewTime(kindNow)}
	if _, err := cs.CoreV1().Events("ns").Create(context.Background(), ev, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-stalled:
	case <-time.After(3 * KindStatusEvery):
		t.Fatal("the event was not seen: no read after the object's last change")
	}
	s := w.StatefulSet.DeepCopy()
	s.Status.Replicas, s.Status.ReadyReplicas, s.Status.UpdatedReplicas, s.Status.CurrentReplicas = 3, 3, 3, 3
	s.Status.CurrentRevision = s.Status.UpdateRevision
	if _, err := cs.AppsV1().StatefulSets("ns").UpdateStatus(context.Background(), s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Follow did not end when the rollout completed")
	}
}

// TestKindStatusDaemonSetUnschedulable: agent's new pod (maxSurge 1, beside the old one on a
// node of cpu 1) stays Pending: status names the scheduler's message.
func TestKindStatusDaemonSetUnschedulable(t *testing.T) {
	w, revs, pods, nodes := surgeFixture(t, "1", "0")
	ds := w.DaemonSet
	ds.Generation, ds.Status.ObservedGeneration, ds.Status.DesiredNumberScheduled = 1, 1, 1
	ds.Status.CurrentNumberScheduled, ds.Status.NumberReady, ds.Status.NumberAvailable = 1, 1, 1
	const msg = "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."
	pending := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "agent-fghij", Namespace: "ns", CreationTimestamp: metav1.NewTime(kindNow.Add(-time.Minute)),
		Labels: map[string]string{"app": "agent", appsv1.DefaultDaemonSetUniqueLabelKey: "new"}},
		Spec: *ds.Spec.Template.Spec.DeepCopy(),
		Status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
			Reason: corev1.PodReasonUnschedulable, Message: msg, LastTransitionTime: metav1.NewTime(kindNow.Add(-50 * time.Second))}}}}
	owner := *metav1.NewControllerRef(ds, appsv1.SchemeGroupVersion.WithKind("DaemonSet"))
	objs := []runtime.Object{ds, nodes[0]}
	for _, r := range revs {
		r.OwnerReferences = []metav1.OwnerReference{owner}
		objs = append(objs, r)
	}
	for _, p := range append(pods, pending) {
		p.OwnerReferences = []metav1.OwnerReference{owner}
		objs = append(objs, p)
	}
	cs := fake.NewClientset(objs...)
	r := NewKindStatusReader(func() (kubernetes.Interface, error) { return cs, nil }, KindStatusConfig{Now: func() time.Time { return kindNow }})
	s, err := r.Read(context.Background(), w)
	if err != nil {
		t.Fatal(err)
	}
	if s.Verdict.Done || len(s.Stalled) != 1 || s.Stalled[0].Reason != stall.Unschedulable || s.Stalled[0].Message != msg || s.Stalled[0].Object != "agent-fghij" {
		t.Errorf("verdict %q, stalled %+v; want the pending pod's Unschedulable message", s.Verdict.Message, s.Stalled)
	}
}
