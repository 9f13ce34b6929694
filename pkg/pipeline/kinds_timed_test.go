package pipeline

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/estimate"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/planner/revisions"
	"github.com/rollplan/kubectl-rollplan/pkg/workload"
)

// dsTimedFixture is DaemonSet ns/agent (maxUnavailable 1) on nodes n0..n(n-1), each running a
// revision-1 pod created 2 minutes before kindNow and Ready readyAfter later.
func dsTimedFixture(t *testing.T, n int, readyAfter time.Duration) (workload.Workload, []*appsv1.ControllerRevision, []*corev1.Pod, []*corev1.Node) {
	t.Helper()
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "ns", UID: "u2"}}
	ds.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "agent"}}
	ds.Spec.Template.Labels = map[string]string{"app": "agent"}
	ds.Spec.Template.Spec.Containers = []corev1.Container{{Name: "a", Image: "v1"}}
	ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType,
		RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: ptr.To(intstr.FromInt32(1)), MaxSurge: ptr.To(intstr.FromInt32(0))}}
	data, err := revisions.Patch(&ds.Spec.Template)
	if err != nil {
		t.Fatal(err)
	}
	hash := revisions.Hash(data, nil)
	r := &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: revisions.Name("agent", hash), Namespace: "ns",
		Labels: map[string]string{"app": "agent", appsv1.DefaultDaemonSetUniqueLabelKey: hash}}, Revision: 1}
	r.Data.Raw = data
	var pods []*corev1.Pod
	var nodes []*corev1.Node
	created := kindNow.Add(-2 * time.Minute)
	for i := range n {
		node := fmt.Sprintf("n%d", i)
		nodes = append(nodes, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: node}})
		pods = append(pods, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "agent-" + node, Namespace: "ns", CreationTimestamp: metav1.NewTime(created),
				Labels: map[string]string{"app": "agent", appsv1.DefaultDaemonSetUniqueLabelKey: hash}},
			Spec: corev1.PodSpec{NodeName: node},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady,
				Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(created.Add(readyAfter))}}},
		})
	}
	return workload.Workload{DaemonSet: ds}, []*appsv1.ControllerRevision{r}, pods, nodes
}

// TestPlanKindTimedDaemonSet: 3 nodes, maxUnavailable 1, pods Ready 10 s after creation, 1 s
// per writing sync: per node a delete, a create 1 s later, Ready 10 s after it: the nodes at
// 0 s, 11 s and 22 s, the last pod available at 33 s. Each operation carries its sync's time.
func TestPlanKindTimedDaemonSet(t *testing.T) {
	w, revs, pods, nodes := dsTimedFixture(t, 3, time.Minute)
	mod, err := (KindChange{Images: []string{"a=v2"}}).Modify(w, revs)
	if err != nil {
		t.Fatal(err)
	}
	e := estimate.Estimate{Source: estimate.SourceFlag, Min: 10 * time.Second, Median: 10 * time.Second, Max: 10 * time.Second}
	p, err := PlanKindTimed(mod, revs, pods, nodes, e, time.Second, kindNow)
	if err != nil {
		t.Fatal(err)
	}
	if p.Outcome != "Complete" || p.Duration == nil || p.Duration.Duration != 33*time.Second || p.Estimate == nil {
		t.Fatalf("outcome %s, duration %v, estimate %v; want Complete, 33s", p.Outcome, p.Duration, p.Estimate)
	}
	var got []string
	for _, op := range p.PodOperations {
		got = append(got, fmt.Sprintf("%s %s %s", op.Node, op.Action, op.At.Duration))
	}
	want := []string{"n0 Delete 0s", "n0 Create 1s", "n1 Delete 11s", "n1 Create 12s", "n2 Delete 22s", "n2 Create 23s"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("operations (-want +got):\n%s", d)
	}
	if _, err := PlanKind(mod, revs, pods, nodes, planner.ReadinessTimed, kindNow); err == nil {
		t.Error("PlanKind with readiness timed: no error (it needs PlanKindTimed's inputs)")
	}
}

// TestPlanKindTimedDaemonSetOnDelete: OnDelete has no end: no duration, the estimate kept.
func TestPlanKindTimedDaemonSetOnDelete(t *testing.T) {
	w, revs, pods, nodes := dsTimedFixture(t, 2, time.Minute)
	w.DaemonSet.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType}
	mod, err := (KindChange{Images: []string{"a=v2"}}).Modify(w, revs)
	if err != nil {
		t.Fatal(err)
	}
	p, err := PlanKindTimed(mod, revs, pods, nodes, estimate.Estimate{Median: 10 * time.Second}, 0, kindNow)
	if err != nil {
		t.Fatal(err)
	}
	if p.Outcome != "WaitingForDelete" || p.Duration != nil || p.Estimate == nil {
		t.Errorf("outcome %s, duration %v, estimate %v; want WaitingForDelete, nil, set", p.Outcome, p.Duration, p.Estimate)
	}
}

// TestPlanKindAsMeasures: without --pod-ready-after the timed model measures the
// DaemonSet's own pods (Ready 20 s after creation: 2 nodes one after the other, 40 s); with
// no Ready pod it asks for --pod-ready-after.
func TestPlanKindAsMeasures(t *testing.T) {
	w, revs, pods, nodes := dsTimedFixture(t, 2, 20*time.Second)
	mod, err := (KindChange{Images: []string{"a=v2"}}).Modify(w, revs)
	if err != nil {
		t.Fatal(err)
	}
	p, err := planKindAs(mod, revs, pods, nodes, planner.ReadinessTimed, kindNow, KindTiming{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Estimate.Source != estimate.SourcePods || p.Estimate.Median != 20*time.Second || p.Duration.Duration != 40*time.Second {
		t.Errorf("estimate %s %s, duration %v; want pods, 20s, 40s", p.Estimate.Source, p.Estimate.Median, p.Duration)
	}
	for _, pod := range pods {
		pod.Status.Conditions = nil
	}
	if _, err := planKindAs(mod, revs, pods, nodes, planner.ReadinessTimed, kindNow, KindTiming{}); err == nil || !strings.Contains(err.Error(), "give --pod-ready-after") {
		t.Errorf("no Ready pod: err %v", err)
	}
}

// TestPlanKindManifestTimed: a manifest set's StatefulSets and DaemonSets are timed as
// preview sts/X is: the DaemonSet of the file (2 nodes, maxUnavailable 1) with
// --pod-ready-after 10s and --sync-latency 1s takes 2 x 11 s; a StatefulSet the set creates
// has no pod to measure (give --pod-ready-after), and with it 3 ordinals one after another.
func TestPlanKindManifestTimed(t *testing.T) {
	src := NewKindFile(stateFixture(t))
	ctx := context.Background()
	now := metav1.NewTime(kindNow)
	ready := estimate.Estimate{Source: estimate.SourceFlag, Min: 10 * time.Second, Median: 10 * time.Second, Max: 10 * time.Second}
	tm := KindTiming{ReadyAfter: &ready, SyncLatency: &estimate.Latency{PerWrite: time.Second}}
	ds, _, _, _ := dsFixture(t)
	p, err := PlanKindManifest(ctx, src, manifestOf(t, ds, "v2"), planner.ReadinessTimed, now, tm)
	if err != nil {
		t.Fatal(err)
	}
	if p.Plan.Duration == nil || p.Plan.Duration.Duration != 22*time.Second || p.Plan.PodOperations[3].At == nil || p.Plan.PodOperations[3].At.Duration != 12*time.Second {
		t.Errorf("DaemonSet: duration %v, operations %+v; want 22s, the last create at 12s", p.Plan.Duration, p.Plan.PodOperations)
	}
	sts, _, _ := stsFixture(t)
	sts.StatefulSet.Name, sts.StatefulSet.Namespace = "cache", "ns"
	if _, err := PlanKindManifest(ctx, src, manifestOf(t, sts, "v1"), planner.ReadinessTimed, now, KindTiming{}); err == nil || !strings.Contains(err.Error(), "--pod-ready-after") {
		t.Errorf("new StatefulSet without --pod-ready-after: err %v", err)
	}
	p, err = PlanKindManifest(ctx, src, manifestOf(t, sts, "v1"), planner.ReadinessTimed, now, KindTiming{ReadyAfter: &ready})
	if err != nil {
		t.Fatal(err)
	}
	if !p.Created || p.Plan.Duration == nil || p.Plan.Duration.Duration != 30*time.Second {
		t.Errorf("new StatefulSet: created %v, duration %v; want true, 30s (3 ordinals in order)", p.Created, p.Plan.Duration)
	}
}
