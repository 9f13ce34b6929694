package statefulset

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

	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/planner/revisions"
)

var now = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// fixture is a StatefulSet "web" whose revisions hold images[0..] (revision numbers 1..),
// the template at image, pods 0..len(podRevs)-1 on revision index podRevs[i], Ready for
// a minute unless unready lists them.
type fixture struct {
	t      *testing.T
	set    *appsv1.StatefulSet
	revs   []*appsv1.ControllerRevision
	images []string
}

func newFixture(t *testing.T, replicas int32, images ...string) *fixture {
	f := &fixture{t: t, images: images}
	f.set = &appsv1.StatefulSet{}
	f.set.Name, f.set.Namespace, f.set.Generation = "web", "ns", 2
	f.set.Spec.Replicas = ptr.To(replicas)
	f.set.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType,
		RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr.To(int32(0))}}
	f.set.Spec.RevisionHistoryLimit = ptr.To(int32(10))
	for i, img := range images {
		tmpl := template(img)
		p, err := revisions.Patch(&tmpl)
		if err != nil {
			t.Fatal(err)
		}
		r := &appsv1.ControllerRevision{Revision: int64(i + 1)}
		r.Data.Raw = p
		r.Name = revisions.Name("web", revisions.Hash(p, ptr.To(int32(0))))
		f.revs = append(f.revs, r)
	}
	return f
}

func template(image string) corev1.PodTemplateSpec {
	t := corev1.PodTemplateSpec{}
	t.Labels = map[string]string{"app": "web"}
	t.Spec.Containers = []corev1.Container{{Name: "c", Image: image}}
	return t
}

func (f *fixture) input(image string, podRevs []int, unready ...int) Input {
	f.set.Spec.Template = template(image)
	f.set.Status.CurrentRevision = f.revs[podRevs[0]].Name
	var pods []*corev1.Pod
	for o, ri := range podRevs {
		p := &corev1.Pod{}
		p.Name, p.Namespace = fmt.Sprintf("web-%d", o), "ns"
		p.Labels = map[string]string{"app": "web", appsv1.StatefulSetPodNameLabel: p.Name, appsv1.StatefulSetRevisionLabel: f.revs[ri].Name}
		p.Status.Phase = corev1.PodRunning
		ready := corev1.ConditionTrue
		for _, u := range unready {
			if u == o {
				ready = corev1.ConditionFalse
			}
		}
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: ready, LastTransitionTime: metav1.NewTime(now.Add(-time.Minute))}}
		pods = append(pods, p)
	}
	return Input{StatefulSet: f.set, Revisions: f.revs, Pods: pods, Now: now, Readiness: ReadinessBatched}
}

// ops renders pod operations as "step:Action pod@revision#number", revisions by image.
func (f *fixture) ops(plan *Plan, extra ...string) []string {
	names := map[string]string{}
	for i, r := range f.revs {
		names[r.Name] = f.images[i]
	}
	for i := 0; i+1 < len(extra); i += 2 {
		names[extra[i]] = extra[i+1]
	}
	var out []string
	for _, op := range plan.PodOperations {
		out = append(out, fmt.Sprintf("%d:%s %s@%s#%d", op.Step, op.Action, op.Pod, names[op.Revision], op.RevisionNumber))
	}
	return out
}

func TestOrderedReadyRollingUpdate(t *testing.T) {
	// 3 replicas on v1, template v2, batched. Sync 1 creates revision 2 and deletes web-2
	// (highest ordinal first); sync 2 recreates it at v2; sync 3 only writes the status (web-2
	// now counts, Pending); sync 4 writes nothing, so web-2 becomes Ready; sync 5 deletes web-1;
	// three syncs per pod, web-0 last.
	f := newFixture(t, 3, "v1")
	plan, err := Simulate(f.input("v2", []int{0, 0, 0}))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"1:Delete web-2@v1#1", "2:Create web-2@v2#2", "5:Delete web-1@v1#1", "6:Create web-1@v2#2", "9:Delete web-0@v1#1", "10:Create web-0@v2#2"}
	if diff := cmp.Diff(want, f.ops(plan, plan.UpdateRevision, "v2")); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	if plan.Outcome != Complete || plan.UpdateRevisionNumber != 2 || len(plan.RevisionOperations) != 1 || plan.RevisionOperations[0].Action != "Create" {
		t.Errorf("outcome %s, update revision #%d, revision ops %v", plan.Outcome, plan.UpdateRevisionNumber, plan.RevisionOperations)
	}
	last := plan.Statuses[len(plan.Statuses)-1]
	if last.CurrentRevision != plan.UpdateRevision || last.UpdatedReplicas != 3 || last.ReadyReplicas != 3 {
		t.Errorf("final status %+v", last)
	}
}

func TestPartitionStops(t *testing.T) {
	// 4 replicas, partition 2: web-3 then web-2 are replaced, web-1 and web-0 keep v1.
	f := newFixture(t, 4, "v1")
	f.set.Spec.UpdateStrategy.RollingUpdate.Partition = ptr.To(int32(2))
	plan, err := Simulate(f.input("v2", []int{0, 0, 0, 0}))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"1:Delete web-3@v1#1", "2:Create web-3@v2#2", "5:Delete web-2@v1#1", "6:Create web-2@v2#2"}
	if diff := cmp.Diff(want, f.ops(plan, plan.UpdateRevision, "v2")); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	if plan.Outcome != Partitioned {
		t.Errorf("outcome %s (%s), want Partitioned", plan.Outcome, plan.Reason)
	}
}

func TestOnDeleteWaits(t *testing.T) {
	f := newFixture(t, 2, "v1")
	f.set.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.OnDeleteStatefulSetStrategyType}
	plan, err := Simulate(f.input("v2", []int{0, 0}))
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.PodOperations) != 0 || plan.Outcome != WaitingForDelete || !cmp.Equal(plan.WaitingForDelete, []string{"web-0", "web-1"}) {
		t.Errorf("ops %v, outcome %s, waiting %v", plan.PodOperations, plan.Outcome, plan.WaitingForDelete)
	}
}

func TestMaxUnavailable(t *testing.T) {
	// 5 replicas, maxUnavailable 2 (the stored field: the gate is on): web-4 and web-3 go in
	// sync 1, both come back in sync 2 (OrderedReady creates one per sync: web-3 in sync 2,
	// web-4 after web-3 is Ready).
	f := newFixture(t, 5, "v1")
	f.set.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = ptr.To(intstr.FromInt32(2))
	plan, err := Simulate(f.input("v2", []int{0, 0, 0, 0, 0}))
	if err != nil {
		t.Fatal(err)
	}
	got := f.ops(plan, plan.UpdateRevision, "v2")
	if diff := cmp.Diff([]string{"1:Delete web-4@v1#1", "1:Delete web-3@v1#1", "2:Create web-3@v2#2"}, got[:3]); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	if plan.Outcome != Complete || len(got) != 10 {
		t.Errorf("outcome %s, %d operations", plan.Outcome, len(got))
	}
	// Without the field (the gate off, its default): one pod at a time.
	f.set.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = nil
	plan, _ = Simulate(f.input("v2", []int{0, 0, 0, 0, 0}))
	if got := f.ops(plan, plan.UpdateRevision, "v2"); got[1] != "2:Create web-4@v2#2" {
		t.Errorf("without maxUnavailable: %v", got)
	}
}

func TestMinReadySeconds(t *testing.T) {
	// minReadySeconds 30: web-2 is recreated (sync 2) and becomes Ready after sync 4 at
	// 12:00:00; sync 5 writes the status (3 Ready, 2 available); sync 6 writes nothing, so the
	// clock moves to 12:00:30, when web-2 is available; sync 7 deletes web-1.
	f := newFixture(t, 3, "v1")
	f.set.Spec.MinReadySeconds = 30
	plan, err := Simulate(f.input("v2", []int{0, 0, 0}))
	if err != nil {
		t.Fatal(err)
	}
	got := f.ops(plan, plan.UpdateRevision, "v2")
	if got[2] != "7:Delete web-1@v1#1" {
		t.Errorf("ops %v: want web-1 deleted in sync 7", got)
	}
	if s := plan.Statuses[4]; s.ReadyReplicas != 3 || s.AvailableReplicas != 2 {
		t.Errorf("sync 5 status: ready %d available %d, want 3 and 2", s.ReadyReplicas, s.AvailableReplicas)
	}
}

func TestIssue67250(t *testing.T) {
	// v1 -> v2 (broken) reached web-2, which never becomes Ready; the template is reverted to
	// v1. The controller reuses revision v1 (renumbered 1 -> 3) but, OrderedReady, waits for
	// web-2 to be Ready before anything else: no pod operation, Stalled, the issue named.
	f := newFixture(t, 3, "v1", "v2")
	in := f.input("v1", []int{0, 0, 1}, 2)
	in.Broken = []string{f.revs[1].Name}
	plan, err := Simulate(in)
	if err != nil {
		t.Fatal(err)
	}
	if plan.UpdateRevision != f.revs[0].Name || plan.UpdateRevisionNumber != 3 {
		t.Errorf("update revision %s #%d, want %s #3", plan.UpdateRevision, plan.UpdateRevisionNumber, f.revs[0].Name)
	}
	if len(plan.PodOperations) != 0 || plan.Outcome != Stalled || plan.StalledOn != "web-2" || !strings.Contains(plan.Reason, Issue67250) {
		t.Errorf("ops %v, outcome %s on %s: %s", plan.PodOperations, plan.Outcome, plan.StalledOn, plan.Reason)
	}
	// Parallel does not wait: web-2 is replaced at v1 and the revert completes.
	f.set.Spec.PodManagementPolicy = appsv1.ParallelPodManagement
	plan, _ = Simulate(in)
	if diff := cmp.Diff([]string{"1:Delete web-2@v2#2", "2:Create web-2@v1#3"}, f.ops(plan)); diff != "" || plan.Outcome != Complete {
		t.Errorf("Parallel: outcome %s (-want +got)\n%s", plan.Outcome, diff)
	}
}

func TestParallelScaleUpAndDown(t *testing.T) {
	// Parallel, 2 -> 4 replicas: both missing pods in sync 1, ascending; then 4 -> 1: web-3,
	// web-2, web-1 deleted in one sync, highest first.
	f := newFixture(t, 4, "v1")
	f.set.Spec.PodManagementPolicy = appsv1.ParallelPodManagement
	plan, _ := Simulate(f.input("v1", []int{0, 0}))
	if diff := cmp.Diff([]string{"1:Create web-2@v1#1", "1:Create web-3@v1#1"}, f.ops(plan)); diff != "" {
		t.Errorf("scale up (-want +got)\n%s", diff)
	}
	f.set.Spec.Replicas = ptr.To(int32(1))
	plan, _ = Simulate(f.input("v1", []int{0, 0, 0, 0}))
	if diff := cmp.Diff([]string{"1:Delete web-3@v1#1", "1:Delete web-2@v1#1", "1:Delete web-1@v1#1"}, f.ops(plan)); diff != "" {
		t.Errorf("scale down (-want +got)\n%s", diff)
	}
}

func TestFailedPodReplaced(t *testing.T) {
	// A Failed pod is deleted in one sync and recreated at its revision in the next, in both
	// policies. (Parallel's second deletion of a stale failed pod, in the update loop, is
	// recorded once: the conformance test's failed pods cover it.)
	for _, policy := range []appsv1.PodManagementPolicyType{appsv1.OrderedReadyPodManagement, appsv1.ParallelPodManagement} {
		f := newFixture(t, 3, "v1")
		f.set.Spec.PodManagementPolicy = policy
		in := f.input("v1", []int{0, 0, 0})
		in.Pods[1].Status.Phase = corev1.PodFailed
		plan, err := Simulate(in)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"1:Delete web-1@v1#1", "2:Create web-1@v1#1"}, f.ops(plan)); diff != "" || plan.Outcome != Complete {
			t.Errorf("%s: outcome %s (-want +got)\n%s", policy, plan.Outcome, diff)
		}
	}
}

func TestTimedOrderedReady(t *testing.T) {
	// 3 replicas OrderedReady, minReadySeconds 5, pods Ready 10 s after creation, 1 s between
	// a sync that writes and the next: each ordinal is deleted only once the one before is
	// available (created + 10 s + 5 s), so the run lasts at least 3 x 15 s, and at most 4
	// latencies more per ordinal (delete, create, the two status writes).
	f := newFixture(t, 3, "v1")
	f.set.Spec.MinReadySeconds = 5
	in := f.input("v2", []int{0, 0, 0})
	in.Readiness, in.ReadyAfter, in.SyncLatency = ReadinessTimed, 10*time.Second, time.Second
	plan, err := Simulate(in)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Outcome != Complete || len(plan.SyncAt) != plan.Syncs {
		t.Fatalf("outcome %s, %d sync times for %d syncs", plan.Outcome, len(plan.SyncAt), plan.Syncs)
	}
	t.Logf("duration %s, syncs at %v", plan.Duration, plan.SyncAt)
	if min, max := 45*time.Second, 45*time.Second+12*time.Second; plan.Duration < min || plan.Duration > max {
		t.Errorf("duration %s, want %s..%s", plan.Duration, min, max)
	}
	var created time.Duration
	for _, op := range plan.PodOperations {
		at := plan.SyncAt[op.Step-1]
		switch op.Action {
		case planner.PodCreate:
			created = at
		case planner.PodDelete:
			if op.Pod != "web-2" && at < created+15*time.Second {
				t.Errorf("%s deleted at %s, before the pod created at %s is available", op.Pod, at, created)
			}
		}
	}
	// The same change under batched has no clock.
	in.Readiness = ReadinessBatched
	if b, _ := Simulate(in); b.Duration != 0 || b.SyncAt != nil || len(b.PodOperations) != len(plan.PodOperations) {
		t.Errorf("batched: duration %s, %d sync times, %d operations (timed %d)", b.Duration, len(b.SyncAt), len(b.PodOperations), len(plan.PodOperations))
	}
}
