package daemonset

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/planner/revisions"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// world is a test fixture: a DaemonSet "agent" changed from image v1 to image, n nodes
// node-0..node-(n-1), each running one ready v1 pod, and v1's ControllerRevision.
type world struct {
	in   Input
	old  Revision // v1's revision
	base *appsv1.DaemonSet
}

func newWorld(n int, image string) *world {
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "ns", UID: "uid-agent"},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "agent"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "agent", Image: "agent:v1"}}},
			},
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: ptr.To(intstr.FromInt32(1)), MaxSurge: ptr.To(intstr.FromInt32(0))}},
			RevisionHistoryLimit: ptr.To(int32(10)),
		},
	}
	w := &world{base: ds.DeepCopy()}
	cr := w.revision(ds, 1)
	w.old = Revision{Name: cr.Name, Hash: cr.Labels[appsv1.DefaultDaemonSetUniqueLabelKey], Number: 1}
	w.in.Revisions = append(w.in.Revisions, cr)
	w.in.DaemonSet = ds.DeepCopy()
	w.in.DaemonSet.Spec.Template.Spec.Containers[0].Image = image
	for i := range n {
		name := fmt.Sprintf("node-%d", i)
		w.in.Nodes = append(w.in.Nodes, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"role": "worker"}}})
		w.pod(name, w.old.Hash, true)
	}
	return w
}

// revision is the ControllerRevision the controller writes for ds's template.
func (w *world) revision(ds *appsv1.DaemonSet, number int64) *appsv1.ControllerRevision {
	h, err := resolveHistory(ds, nil)
	if err != nil {
		panic(err)
	}
	cr := &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{Name: h.update.Name, Namespace: ds.Namespace,
			Labels: map[string]string{"app": "agent", appsv1.DefaultDaemonSetUniqueLabelKey: h.update.Hash}},
		Revision: number,
	}
	data, err := revisions.Patch(&ds.Spec.Template)
	if err != nil {
		panic(err)
	}
	cr.Data.Raw = data
	return cr
}

func (w *world) pod(node, hash string, ready bool) {
	k := len(w.in.Pods)
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("agent-%s", node), Namespace: "ns",
			Labels:            map[string]string{"app": "agent", appsv1.DefaultDaemonSetUniqueLabelKey: hash},
			CreationTimestamp: metav1.NewTime(epoch.Add(time.Duration(k) * time.Second))},
		Spec:   corev1.PodSpec{NodeName: node},
		Status: corev1.PodStatus{Phase: corev1.PodRunning},
	}
	if ready {
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	}
	w.in.Pods = append(w.in.Pods, p)
}

func (w *world) strategy(maxSurge, maxUnavailable string) *world {
	w.in.DaemonSet.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateDaemonSet{
		MaxSurge: ptr.To(intstr.Parse(maxSurge)), MaxUnavailable: ptr.To(intstr.Parse(maxUnavailable))}
	return w
}

func simulate(t *testing.T, in Input) *Plan {
	t.Helper()
	p, err := Simulate(in)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// stepCounts returns, per step, "Ccreates/Ddeletes unavailable surging".
func stepCounts(p *Plan) []string {
	var out []string
	for _, s := range p.Steps {
		out = append(out, fmt.Sprintf("%d: C%d D%d u%d s%d", s.Step, s.Creates, s.Deletes, s.Unavailable, s.Surging))
	}
	return out
}

func TestDeleteFirstMaxUnavailable2(t *testing.T) {
	// 5 nodes on v1, maxUnavailable 2, batched: sync 1 deletes 2 old pods (2 nodes down),
	// sync 2 creates their replacements, sync 3 writes nothing so the new pods become
	// available; sync 4 deletes the next 2, and so on: 5 = 2 + 2 + 1.
	w := newWorld(5, "agent:v2").strategy("0", "2")
	p := simulate(t, w.in)
	want := []string{"1: C0 D2 u2 s0", "2: C2 D0 u2 s0", "4: C0 D2 u2 s0", "5: C2 D0 u2 s0", "7: C0 D1 u1 s0", "8: C1 D0 u1 s0"}
	if d := cmp.Diff(want, stepCounts(p)); d != "" {
		t.Errorf("steps (-want +got):\n%s", d)
	}
	if p.Outcome != OutcomeComplete || p.MaxUnavailable != 2 || p.MaxSurge != 0 || p.DesiredNumberScheduled != 5 {
		t.Errorf("outcome %s, maxUnavailable %d, maxSurge %d, desired %d; want Complete, 2, 0, 5", p.Outcome, p.MaxUnavailable, p.MaxSurge, p.DesiredNumberScheduled)
	}
	// Per node: delete the v1 pod, then create a v2 pod the next sync.
	node0 := []planner.PodOperation{
		{Step: 1, Action: planner.PodDelete, Pod: "agent-node-0", Node: "node-0", Revision: w.old.Name, RevisionNumber: 1},
		{Step: 2, Action: planner.PodCreate, Node: "node-0", Revision: p.UpdateRevision.Name, RevisionNumber: 2},
	}
	if d := cmp.Diff(node0, p.PodOperations[:2]); d != "" {
		t.Errorf("node-0 (-want +got):\n%s", d)
	}
	if p.OrderMattersFrom != 1 {
		t.Errorf("OrderMattersFrom = %d, want 1 (2 of 5 candidates)", p.OrderMattersFrom)
	}
}

func TestSurgeCreatesFirst(t *testing.T) {
	// 4 nodes, maxSurge 50% of 4 = 2 (rounded up), maxUnavailable 0: sync 1 creates 2 new
	// pods beside the old ones (2 nodes surging), sync 2 writes nothing (batched: they become
	// available). Sync 3: the manage loop, before the rolling update, finds two pods on those
	// nodes with the new one available and deletes the old ones; having written, the sync
	// skips the rolling update (expectations), so the next 2 surge pods come in sync 4.
	w := newWorld(4, "agent:v2").strategy("50%", "0")
	p := simulate(t, w.in)
	want := []string{"1: C2 D0 u0 s2", "3: C0 D2 u0 s0", "4: C2 D0 u0 s2", "6: C0 D2 u0 s0"}
	if d := cmp.Diff(want, stepCounts(p)); d != "" {
		t.Errorf("steps (-want +got):\n%s", d)
	}
	if p.MaxSurge != 2 || p.Outcome != OutcomeComplete {
		t.Errorf("maxSurge %d, outcome %s; want 2, Complete", p.MaxSurge, p.Outcome)
	}
	if got := p.PodOperations[0]; got.Action != planner.PodCreate || got.Step != 1 || p.PodOperations[1].Action != planner.PodDelete || p.PodOperations[1].Step != 3 || p.PodOperations[1].Pod != "agent-node-0" {
		t.Errorf("node-0: want Create at 1 then Delete at 3, got %+v", p.PodOperations[:2])
	}
}

func TestNeverReadyStalls(t *testing.T) {
	// maxUnavailable 1 and new pods that never become ready: one node is replaced, then the
	// controller waits; 3 nodes keep v1.
	w := newWorld(4, "agent:v2")
	w.in.Readiness = planner.ReadinessNever
	p := simulate(t, w.in)
	if d := cmp.Diff([]string{"1: C0 D1 u1 s0", "2: C1 D0 u1 s0"}, stepCounts(p)); d != "" {
		t.Errorf("steps (-want +got):\n%s", d)
	}
	if p.Outcome != OutcomeStalled {
		t.Errorf("outcome %s, want Stalled", p.Outcome)
	}
}

func TestOnDeleteWaits(t *testing.T) {
	w := newWorld(3, "agent:v2")
	w.in.DaemonSet.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType}
	p := simulate(t, w.in)
	if len(p.PodOperations) != 0 || p.Outcome != OutcomeWaitingForDelete || len(p.WaitingForDelete) != 3 {
		t.Fatalf("ops %v, outcome %s, waiting %v; want none, WaitingForDelete, 3 pods", p.PodOperations, p.Outcome, p.WaitingForDelete)
	}
	if got := p.WaitingForDelete[2]; got != (PodRef{Pod: "agent-node-2", Node: "node-2", Revision: w.old.Name, RevisionNumber: 1}) {
		t.Errorf("waiting[2] = %+v", got)
	}
}

func TestRollbackReusesAndRenumbers(t *testing.T) {
	// Revisions v1 (1) and v2 (2); pods run v2; the template goes back to v1: the controller
	// reuses v1's revision (same name and hash) and renumbers it 3.
	w := newWorld(2, "agent:v2")
	v2 := w.revision(w.in.DaemonSet, 2)
	w.in.Revisions = append(w.in.Revisions, v2)
	w.in.Pods = nil
	w.pod("node-0", v2.Labels[appsv1.DefaultDaemonSetUniqueLabelKey], true)
	w.pod("node-1", v2.Labels[appsv1.DefaultDaemonSetUniqueLabelKey], true)
	w.in.DaemonSet = w.base.DeepCopy()
	p := simulate(t, w.in)
	want := Revision{Name: w.old.Name, Hash: w.old.Hash, Number: 3, Reused: true, RenumberedFrom: 1}
	if d := cmp.Diff(want, p.UpdateRevision); d != "" {
		t.Errorf("update revision (-want +got):\n%s", d)
	}
	if op := p.PodOperations[0]; op.Revision != v2.Name || op.RevisionNumber != 2 || p.PodOperations[1].Revision != w.old.Name || p.PodOperations[1].RevisionNumber != 3 {
		t.Errorf("node-0 ops %+v: want the v2 pod (revision 2) deleted, a pod of %s (revision 3) created", p.PodOperations[:2], w.old.Name)
	}
}

func TestNodesWithoutPod(t *testing.T) {
	// node-1 carries an untolerated NoSchedule taint: its v1 pod may continue running, but
	// the rolling update (maxSurge 0) counts it as an old pod like any other, deletes it, and
	// no new pod may start there: node-1 ends with no pod. node-2 has an untolerated NoExecute
	// taint: its pod is deleted by the first sync. node-3 is cordoned (unschedulable), which
	// every DaemonSet pod tolerates.
	w := newWorld(4, "agent:v2")
	w.in.Nodes[1].Spec.Taints = []corev1.Taint{{Key: "dedicated", Value: "db", Effect: corev1.TaintEffectNoSchedule}}
	w.in.Nodes[2].Spec.Taints = []corev1.Taint{{Key: "gpu", Effect: corev1.TaintEffectNoExecute}}
	w.in.Nodes[3].Spec.Taints = []corev1.Taint{{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}}
	p := simulate(t, w.in)
	want := []NodeReport{
		{Name: "node-0", ShouldRun: true, ShouldContinueRunning: true},
		{Name: "node-1", ShouldContinueRunning: true, Reason: "taint dedicated=db:NoSchedule not tolerated"},
		{Name: "node-2", Reason: "taint gpu:NoExecute not tolerated"},
		{Name: "node-3", ShouldRun: true, ShouldContinueRunning: true},
	}
	if d := cmp.Diff(want, p.Nodes); d != "" {
		t.Errorf("nodes (-want +got):\n%s", d)
	}
	byNode := map[string][]string{}
	for _, op := range p.PodOperations {
		byNode[op.Node] = append(byNode[op.Node], fmt.Sprintf("%d %s %s", op.Step, op.Action, op.Pod))
	}
	// Sync 1 (manage) deletes node-2's pod; sync 2, maxUnavailable 1 of desired 2, picks
	// node-0 (by name); once it is back, sync 5 picks node-1 (by name; never replaced, and
	// from then on not counted), and sync 6 node-3 at once.
	want2 := map[string][]string{
		"node-0": {"2 Delete agent-node-0", "3 Create "},
		"node-1": {"5 Delete agent-node-1"},
		"node-2": {"1 Delete agent-node-2"},
		"node-3": {"6 Delete agent-node-3", "7 Create "},
	}
	if d := cmp.Diff(want2, byNode); d != "" {
		t.Errorf("operations per node (-want +got):\n%s", d)
	}
	if p.DesiredNumberScheduled != 2 || p.Outcome != OutcomeComplete {
		t.Errorf("desired %d, outcome %s; want 2, Complete", p.DesiredNumberScheduled, p.Outcome)
	}
}

func TestNoChange(t *testing.T) {
	w := newWorld(3, "agent:v1")
	p := simulate(t, w.in)
	if p.Outcome != OutcomeNoChange || len(p.PodOperations) != 0 || !p.UpdateRevision.Reused || p.UpdateRevision.Number != 1 {
		t.Errorf("outcome %s, ops %v, revision %+v; want NoChange, none, v1 reused as 1", p.Outcome, p.PodOperations, p.UpdateRevision)
	}
}

func TestBurstReplicas(t *testing.T) {
	// 300 nodes, maxUnavailable 100%: the rolling update may delete all 300 old pods, but a
	// sync makes at most 250 deletes: sync 1 deletes 250 (which ones depends on the node
	// order), sync 2's manage creates their 250 replacements (so no rolling update that
	// sync), sync 3 deletes the last 50 old pods (300 unavailable), sync 4 replaces them.
	w := newWorld(300, "agent:v2").strategy("0", "100%")
	p := simulate(t, w.in)
	want := []string{"1: C0 D250 u250 s0", "2: C250 D0 u250 s0", "3: C0 D50 u300 s0", "4: C50 D0 u300 s0"}
	if d := cmp.Diff(want, stepCounts(p)); d != "" {
		t.Errorf("steps (-want +got):\n%s", d)
	}
	if p.OrderMattersFrom != 1 {
		t.Errorf("OrderMattersFrom = %d, want 1", p.OrderMattersFrom)
	}
}

func TestDuplicateRevisions(t *testing.T) {
	// Two revisions hold the new template (numbers 2 and 3): the controller keeps number 3,
	// deletes the other and relabels every pod with its hash, old pods included. Sync 1's
	// rolling update still sees the old labels and deletes one v1 pod (maxUnavailable 1);
	// from sync 2 the two others count as updated, so only node-0 gets a new pod.
	w := newWorld(3, "agent:v2")
	dup := w.revision(w.in.DaemonSet, 2)
	keep := dup.DeepCopy()
	keep.Name, keep.Revision = "agent-kept", 3
	w.in.Revisions = append(w.in.Revisions, dup, keep)
	p := simulate(t, w.in)
	if d := cmp.Diff([]RevisionDelete{{Step: 1, Revision: dup.Name}}, p.RevisionsDeleted); d != "" {
		t.Errorf("revisions deleted (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"1: C0 D1 u1 s0", "2: C1 D0 u1 s0"}, stepCounts(p)); d != "" {
		t.Errorf("steps (-want +got):\n%s", d)
	}
	if p.UpdateRevision.Name != "agent-kept" || p.UpdateRevision.Number != 3 || p.Outcome != OutcomeComplete {
		t.Errorf("update revision %+v, outcome %s; want agent-kept 3, Complete", p.UpdateRevision, p.Outcome)
	}
}
