package stsdrive

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/drive/objlease"
	"github.com/rollplan/kubectl-rollplan/pkg/drive/partition"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

var ref = target.KindRef{Kind: target.KindStatefulSet, Namespace: "ns", Name: "db"}

// settled is sts db with 2 replicas at partition p, both pods Ready (a minute ago) on
// revision rev, status.currentRevision cur.
func settled(p int32, rev, cur string) (*appsv1.StatefulSet, []runtime.Object) {
	s := sts()
	s.Spec.Replicas = ptr.To[int32](2)
	s.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}
	s.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType, RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr.To(p)}}
	s.UID = "sts-uid"
	s.Status = appsv1.StatefulSetStatus{CurrentRevision: cur, UpdateRevision: rev}
	objs := []runtime.Object{s}
	for _, n := range []string{"db-0", "db-1"} {
		objs = append(objs, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: n, Labels: map[string]string{"app": "db", appsv1.ControllerRevisionHashLabelKey: rev},
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "db", UID: "sts-uid", Controller: ptr.To(true)}}},
			Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(time.Now().Add(-time.Minute))}}},
		})
	}
	return s, objs
}

func writes(cs *fake.Clientset) []string {
	var out []string
	for _, a := range cs.Actions() {
		if v := a.GetVerb(); v != "get" && v != "list" && v != "watch" {
			out = append(out, v+" "+a.GetResource().Resource)
		}
	}
	return out
}

func opts(cs *fake.Clientset) Options {
	return Options{Client: cs, Ref: ref, Walk: partition.Config{Step: intstr.FromInt32(1)}, Resync: time.Millisecond}
}

// A resumed walk at partition 1 whose pods all run the update revision: one write (1 -> 0),
// then done.
func TestRunResumeLowersToZeroThenDone(t *testing.T) {
	_, objs := settled(1, "db-2", "db-2")
	cs := fake.NewClientset(objs...)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := Run(ctx, opts(cs)); err != nil {
		t.Fatal(err)
	}
	got, err := cs.AppsV1().StatefulSets("ns").Get(ctx, "db", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p := partition.CurrentPartition(got); p != 0 {
		t.Errorf("partition %d, want 0", p)
	}
	// take the lease, the partition write, release the lease
	if w := writes(cs); len(w) != 3 {
		t.Errorf("writes %v, want three patches (lease, partition, release)", w)
	}
	if v, ok := got.Annotations[objlease.Annotation]; ok {
		t.Errorf("lease left behind after the drive: %s", v)
	}
}

// A StatefulSet whose lease another driver holds: refused with the one line, nothing
// written; --force takes it and the walk completes.
func TestRunRefusesAHeldLeaseForceTakesIt(t *testing.T) {
	s, objs := settled(1, "db-2", "db-2")
	exp := time.Now().Add(time.Minute).UTC().Truncate(time.Second)
	s.Annotations = map[string]string{objlease.Annotation: `{"holder":"alice@h pid 1/ab","expires":"` + exp.Format(time.RFC3339) + `"}`}
	cs := fake.NewClientset(objs...)
	o := opts(cs)
	o.Identity = "bob@h pid 2/cd"
	err := Run(context.Background(), o)
	want := "statefulset ns/db is being driven by alice@h pid 1/ab (lease valid until " + exp.Format(time.RFC3339) + "): wait, or pass --force if that driver is gone"
	if err == nil || err.Error() != want || len(writes(cs)) != 0 {
		t.Fatalf("err %v, writes %v: want %q and no write", err, writes(cs), want)
	}
	var progress events
	o.Force, o.Progress = true, progress.add
	if err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	got, _ := cs.AppsV1().StatefulSets("ns").Get(context.Background(), "db", metav1.GetOptions{})
	if p := partition.CurrentPartition(got); p != 0 || progress.find(Event{Kind: EventTookLease, Ref: o.Ref, Holder: "alice@h pid 1/ab"}) == 0 {
		t.Errorf("partition %d, progress %q", p, progress.String())
	}
}

// A walk that waits longer than a third of the lease renews it; a lease taken by another
// driver meanwhile stops the walk without a partition write.
func TestRunRenewsAndStopsWhenLeaseTaken(t *testing.T) {
	_, objs := settled(2, "db-2", "db-1")
	objs[2].(*corev1.Pod).Status.Conditions = nil // db-1 not Ready: the walk waits at partition 1
	cs := fake.NewClientset(objs...)
	o := opts(cs)
	o.Identity, o.LeaseDuration = "bob", 300*time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- Run(ctx, o) }()
	var first string
	for first == "" {
		got, _ := cs.AppsV1().StatefulSets("ns").Get(ctx, "db", metav1.GetOptions{})
		first = got.Annotations[objlease.Annotation]
	}
	time.Sleep(400 * time.Millisecond)
	got, _ := cs.AppsV1().StatefulSets("ns").Get(ctx, "db", metav1.GetOptions{})
	if v := got.Annotations[objlease.Annotation]; v == "" || v == first {
		t.Fatalf("lease %q not renewed (first %q)", v, first)
	}
	got.Annotations[objlease.Annotation] = `{"holder":"mallory","expires":"2999-01-01T00:00:00Z"}`
	if _, err := cs.AppsV1().StatefulSets("ns").Update(ctx, got, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	err := <-done
	if err == nil || !strings.Contains(err.Error(), "drive lost its lease") {
		t.Fatalf("err = %v, want the lost-lease stop", err)
	}
	got, _ = cs.AppsV1().StatefulSets("ns").Get(ctx, "db", metav1.GetOptions{})
	if p := partition.CurrentPartition(got); p != 1 || !strings.Contains(got.Annotations[objlease.Annotation], "mallory") {
		t.Errorf("partition %d, lease %q: want 1 and mallory's lease kept", p, got.Annotations[objlease.Annotation])
	}
}

// A pod that never becomes available: hold after the timeout, exit as *HeldError.
func TestRunHoldsAfterTimeout(t *testing.T) {
	_, objs := settled(2, "db-2", "db-1")
	objs[2].(*corev1.Pod).Status.Conditions = nil // db-1, not Ready
	cs := fake.NewClientset(objs...)
	o := opts(cs)
	o.Walk.ProgressDeadline = 50 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := Run(ctx, o)
	held, ok := err.(*HeldError)
	if !ok || held.Action != partition.ActionHold || held.Partition != 1 {
		t.Fatalf("err = %v, want a hold at partition 1", err)
	}
}

func TestRunRefusesOnDeleteWithoutWriting(t *testing.T) {
	s, objs := settled(0, "db-1", "db-1")
	s.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.OnDeleteStatefulSetStrategyType}
	cs := fake.NewClientset(objs...)
	o := opts(cs)
	o.Change = Change{Images: []string{"db=pg:16"}}
	err := Run(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "OnDelete") || len(writes(cs)) != 0 {
		t.Errorf("err %v, writes %v: want the OnDelete refusal and no write", err, writes(cs))
	}
}

func TestAbortNothingToAbort(t *testing.T) {
	_, objs := settled(0, "db-1", "db-1")
	cs := fake.NewClientset(objs...)
	if _, err := Abort(context.Background(), cs, ref); err == nil || !strings.Contains(err.Error(), "no rollout to abort") || len(writes(cs)) != 0 {
		t.Errorf("err %v, writes %v", err, writes(cs))
	}
}

// A partition write that fails transiently (the API server restarting: 503) while the
// lease holds: the walk warns, reads again, decides again and completes. (Reads retry
// inside live.Load already.)
func TestRunRidesTransientReadErrors(t *testing.T) {
	_, objs := settled(1, "db-2", "db-2")
	cs := fake.NewClientset(objs...)
	var patches int
	cs.PrependReactor("patch", "statefulsets", func(k8stesting.Action) (bool, runtime.Object, error) {
		patches++
		if patches == 2 || patches == 3 { // after the lease: the first two partition writes
			return true, nil, apierrors.NewServiceUnavailable("apiserver restarting")
		}
		return false, nil, nil
	})
	var progress events
	o := opts(cs)
	o.Progress = progress.add
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := Run(ctx, o); err != nil {
		t.Fatalf("err = %v\n%s", err, progress.String())
	}
	got, _ := cs.AppsV1().StatefulSets("ns").Get(ctx, "db", metav1.GetOptions{})
	if p := partition.CurrentPartition(got); p != 0 || progress.count(EventTransientRetry) != 2 {
		t.Errorf("partition %d, progress:\n%s", p, progress.String())
	}
}

// The walk waits on the watch, not a poll: with a resync of an hour, a pod turning Ready
// and then status.currentRevision moving (the controller's writes, through the fake
// clientset's watch) each wake it at once, and it completes within seconds.
func TestRunWakesOnWatchedChanges(t *testing.T) {
	_, objs := settled(2, "db-2", "db-1")
	objs[2].(*corev1.Pod).Status.Conditions = nil // db-1 not Ready: the walk waits at partition 1
	cs := fake.NewClientset(objs...)
	o := opts(cs)
	o.Resync = time.Hour
	var progress events
	o.Progress = progress.add
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- Run(ctx, o) }()
	waitFor := func(what string, ok func(*appsv1.StatefulSet) bool) {
		for {
			got, err := cs.AppsV1().StatefulSets("ns").Get(ctx, "db", metav1.GetOptions{})
			if err == nil && ok(got) {
				return
			}
			select {
			case <-ctx.Done():
				t.Fatalf("walk never %s: %s", what, progress.String())
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
	waitFor("lowered the partition to 1", func(s *appsv1.StatefulSet) bool { return partition.CurrentPartition(s) == 1 })
	time.Sleep(200 * time.Millisecond)
	pod, err := cs.CoreV1().Pods("ns").Get(ctx, "db-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Now()}}
	if _, err := cs.CoreV1().Pods("ns").UpdateStatus(ctx, pod, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor("lowered the partition to 0", func(s *appsv1.StatefulSet) bool { return partition.CurrentPartition(s) == 0 })
	time.Sleep(200 * time.Millisecond)
	s, _ := cs.AppsV1().StatefulSets("ns").Get(ctx, "db", metav1.GetOptions{})
	s.Status.CurrentRevision = "db-2"
	if _, err := cs.AppsV1().StatefulSets("ns").UpdateStatus(ctx, s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("err = %v\n%s", err, progress.String())
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("walk took %s with a resync of an hour: the watch did not wake it", took)
	}
	if progress.find(Event{Kind: EventDone, Ref: o.Ref, Replicas: 2, Revision: "db-2"}) == 0 {
		t.Errorf("progress:\n%s", progress.String())
	}
}

// Plan of a change: the walk from replicas (step 1, a pause after ordinal 1), nothing
// written; the result of a run maps to the API's outcome.
func TestPlanWritesNothing(t *testing.T) {
	_, objs := settled(0, "db-1", "db-1")
	cs := fake.NewClientset(objs...)
	o := opts(cs)
	o.Change = Change{Images: []string{"app=nginx:1.19"}}
	o.Walk.PauseAfter = []int32{1}
	p, err := Plan(context.Background(), o, "client")
	if err != nil {
		t.Fatal(err)
	}
	if len(writes(cs)) != 0 {
		t.Errorf("a client dry run wrote %v", writes(cs))
	}
	if p.Kind != "StatefulSetDrive" || p.StartPartition != 2 || len(p.Steps) != 2 ||
		p.Steps[0].From != 2 || p.Steps[0].To != 1 || !p.Steps[0].PauseAfter || p.Steps[1].To != 0 || p.Steps[1].PauseAfter {
		t.Errorf("plan %+v", p)
	}
	if r := Result(&HeldError{Partition: 1, Action: partition.ActionPause, Reason: "paused"}); r == nil || r.Outcome != "Paused" || r.Partition != 1 {
		t.Errorf("Result(pause) = %+v", r)
	}
	if r := Result(nil); r == nil || r.Outcome != "Done" {
		t.Errorf("Result(nil) = %+v", r)
	}
	if r := Result(context.Canceled); r != nil {
		t.Errorf("Result(an error) = %+v, want nil", r)
	}
}

// events records a walk's progress events (Options.Progress), safe for concurrent use.
type events struct {
	mu   sync.Mutex
	list []Event
}

func (r *events) add(e Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.list = append(r.list, e)
}

// count is the number of events of kind k.
func (r *events) count(k EventKind) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, e := range r.list {
		if e.Kind == k {
			n++
		}
	}
	return n
}

// find is the number of events equal to want (Err aside).
func (r *events) find(want Event) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, e := range r.list {
		if e.Err = nil; e == want {
			n++
		}
	}
	return n
}

func (r *events) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return fmt.Sprintf("%+v", r.list)
}
