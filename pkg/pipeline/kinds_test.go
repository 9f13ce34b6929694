package pipeline

import (
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

var kindNow = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// stsFixture is StatefulSet ns/web, 3 replicas on revision 1 (image v1), all Ready.
func stsFixture(t *testing.T) (workload.Workload, []*appsv1.ControllerRevision, []*corev1.Pod) {
	t.Helper()
	s := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns", UID: "u1"}}
	s.Spec.Replicas = ptr.To(int32(3))
	s.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	s.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType,
		RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr.To(int32(0))}}
	s.Spec.Template.Labels = map[string]string{"app": "web"}
	s.Spec.Template.Spec.Containers = []corev1.Container{{Name: "c", Image: "v1"}}
	p, err := revisions.Patch(&s.Spec.Template)
	if err != nil {
		t.Fatal(err)
	}
	r := &appsv1.ControllerRevision{Revision: 1}
	r.Data.Raw = p
	r.Name = revisions.Name("web", revisions.Hash(p, nil))
	s.Status.CurrentRevision, s.Status.UpdateRevision = r.Name, r.Name
	var pods []*corev1.Pod
	for o := range 3 {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("web-%d", o), Namespace: "ns",
			Labels: map[string]string{"app": "web", appsv1.StatefulSetRevisionLabel: r.Name}}}
		pod.Status.Phase = corev1.PodRunning
		pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(kindNow.Add(-time.Minute))}}
		pods = append(pods, pod)
	}
	return workload.Workload{StatefulSet: s}, []*appsv1.ControllerRevision{r}, pods
}

func TestModifyStatefulSetImagePartition(t *testing.T) {
	w, revs, _ := stsFixture(t)
	c := KindChange{Images: []string{"c=v2"}, Replicas: ptr.To(int32(4)), Partition: ptr.To(int32(1))}
	mod, err := c.Modify(w, revs)
	if err != nil {
		t.Fatal(err)
	}
	if got := w.StatefulSet.Spec.Template.Spec.Containers[0].Image; got != "v1" {
		t.Errorf("Modify changed its input: image %s", got)
	}
	patch, err := KindPatch(w, mod)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"replicas":4`, `"partition":1`, `"image":"v2"`} {
		if !strings.Contains(string(patch), want) {
			t.Errorf("patch %s lacks %s", patch, want)
		}
	}
	if _, err := (KindChange{Images: []string{"nope=v2"}}).Modify(w, revs); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("unknown container: err %v", err)
	}
	ds := workload.Workload{DaemonSet: &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "ns"}}}
	if _, err := (KindChange{Partition: ptr.To(int32(1))}).Modify(ds, nil); err == nil {
		t.Error("--partition on a DaemonSet: no error")
	}
}

func TestPlanKindStatefulSetPartition(t *testing.T) {
	w, revs, pods := stsFixture(t)
	mod, err := (KindChange{Images: []string{"c=v2"}, Partition: ptr.To(int32(1))}).Modify(w, revs)
	if err != nil {
		t.Fatal(err)
	}
	p, err := PlanKind(mod, revs, pods, nil, planner.ReadinessBatched, kindNow)
	if err != nil {
		t.Fatal(err)
	}
	if p.UpdateRevisionNumber != 2 || p.UpdateRevision == revs[0].Name || !strings.HasPrefix(p.UpdateRevision, "web-") {
		t.Errorf("update revision %d %s", p.UpdateRevisionNumber, p.UpdateRevision)
	}
	var got []string
	for _, op := range p.PodOperations {
		got = append(got, fmt.Sprintf("%s %s r%d", op.Action, op.Pod, op.RevisionNumber))
	}
	want := []string{"Delete web-2 r1", "Create web-2 r2", "Delete web-1 r1", "Create web-1 r2"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pod operations (-want +got):\n%s", diff)
	}
	if p.Outcome != "Partitioned" || p.Workload != (WorkloadRef{Kind: "StatefulSet", Namespace: "ns", Name: "web"}) || p.Partition != 1 {
		t.Errorf("outcome %s, workload %+v, partition %d", p.Outcome, p.Workload, p.Partition)
	}
	if _, err := PlanKind(mod, revs, pods, nil, planner.ReadinessTimed, kindNow); err == nil {
		t.Error("readiness timed: no error")
	}
}

func TestPlanKindDaemonSetTaintedNode(t *testing.T) {
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "ns", UID: "u2"}}
	ds.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "agent"}}
	ds.Spec.Template.Labels = map[string]string{"app": "agent"}
	ds.Spec.Template.Spec.Containers = []corev1.Container{{Name: "a", Image: "v1"}}
	ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType, // the server's defaults
		RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: ptr.To(intstr.FromInt32(1)), MaxSurge: ptr.To(intstr.FromInt32(0))}}
	nodes := []*corev1.Node{{ObjectMeta: metav1.ObjectMeta{Name: "n1"}},
		{ObjectMeta: metav1.ObjectMeta{Name: "n2"}, Spec: corev1.NodeSpec{Taints: []corev1.Taint{{Key: "gpu", Effect: corev1.TaintEffectNoSchedule}}}}}
	w := workload.Workload{DaemonSet: ds}
	mod, err := (KindChange{Images: []string{"*=v2"}}).Modify(w, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := PlanKind(mod, nil, nil, nodes, planner.ReadinessBatched, kindNow)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.PodOperations) != 1 || p.PodOperations[0].Action != "Create" || p.PodOperations[0].Node != "n1" || p.PodOperations[0].RevisionNumber != 1 {
		t.Errorf("pod operations %+v", p.PodOperations)
	}
	if p.MaxSurge != 0 || p.MaxUnavailable != 1 {
		t.Errorf("maxSurge %d, maxUnavailable %d; want 0 and 1", p.MaxSurge, p.MaxUnavailable)
	}
	if len(p.Nodes) != 2 || p.Nodes[1].ShouldRun || !strings.Contains(p.Nodes[1].Reason, "gpu") {
		t.Errorf("nodes %+v", p.Nodes)
	}
}

// TestPlanKindTimedStatefulSet: under the timed model each operation carries its sync's time
// and the plan its duration; pods Ready 10 s after creation, no latency: the three ordinals
// are replaced one after another, so the last create comes at least 2 x 10 s in, and the run
// ends 10 s after it.
func TestPlanKindTimedStatefulSet(t *testing.T) {
	w, revs, pods := stsFixture(t)
	mod, err := (KindChange{Images: []string{"c=v2"}}).Modify(w, revs)
	if err != nil {
		t.Fatal(err)
	}
	e := estimate.Estimate{Source: estimate.SourceFlag, Min: 10 * time.Second, Median: 10 * time.Second, Max: 10 * time.Second}
	p, err := PlanKindTimed(mod, revs, pods, nil, e, 0, kindNow)
	if err != nil {
		t.Fatal(err)
	}
	last := p.PodOperations[len(p.PodOperations)-1]
	if p.Duration == nil || last.At == nil || last.Action != "Create" || last.At.Duration < 20*time.Second || p.Duration.Duration != last.At.Duration+10*time.Second {
		t.Fatalf("duration %v, last operation %+v", p.Duration, last)
	}
	if p.Outcome != "Complete" || p.Estimate == nil {
		t.Errorf("outcome %s, estimate %v", p.Outcome, p.Estimate)
	}
}
