package drive

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stesting "k8s.io/client-go/testing"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/kube"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// runFixture is a rolled-out Deployment "web" (10 replicas, RollingUpdate 25%/25%, nginx:1.18)
// in a fake cluster whose controllers run, and the change to nginx:1.19.
type runFixture struct {
	fc      *fakeCluster
	live    *appsv1.Deployment
	old     *appsv1.ReplicaSet
	desired *appsv1.Deployment
	newName string
}

func newRunFixture(t *testing.T) *runFixture {
	t.Helper()
	d := testutil.Deployment("web").Replicas(10).Revision(1).Build()
	d.Status = appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 10, UpdatedReplicas: 10, ReadyReplicas: 10, AvailableReplicas: 10}
	old := testutil.ReplicaSetFor(d).Created(1).Status(10, 10, 10).Build()
	old.Status.ObservedGeneration = 1
	fc := newFakeCluster(t, d, old)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); fc.runControllers(ctx, 2*time.Millisecond) }()
	t.Cleanup(func() { cancel(); <-done })
	desired := withImage(d, "nginx:1.19")
	return &runFixture{fc: fc, live: d, old: old, desired: desired,
		newName: planner.ReplicaSetName("web", planner.ComputeHash(&desired.Spec.Template, nil))}
}

// drive prepares and runs a driver with opts (Client, Namespace, Name and Desired filled in).
func (f *runFixture) drive(t *testing.T, opts Options) (*Prepared, *Result, error) {
	t.Helper()
	opts.Client, opts.Namespace, opts.Name = f.fc.cs, "default", "web"
	if opts.Progress == nil {
		opts.Progress = testLog(t)
	}
	if opts.Desired == nil && !opts.Abort {
		opts.Desired = f.desired
	}
	if opts.CompletionTimeout == 0 {
		opts.CompletionTimeout = 10 * time.Second
	}
	if opts.ProgressTimeout == 0 {
		opts.ProgressTimeout = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	drv := New(opts)
	p, err := drv.Prepare(ctx)
	if err != nil {
		t.Fatalf("prepare: %v", err)
	}
	res, err := drv.Run(ctx, p)
	return p, res, err
}

func (f *runFixture) deployment(t *testing.T) *appsv1.Deployment {
	t.Helper()
	d, err := f.fc.cs.AppsV1().Deployments("default").Get(context.Background(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// slowClock is a clock that runs factor times slower than the real one (the driver's
// renewal ticker runs on real time, a third of the lease).
func slowClock(factor int) func() time.Time {
	began := time.Now()
	return func() time.Time { return began.Add(time.Since(began) / time.Duration(factor)) }
}

// renewals counts the recorded writes that changed nothing in the drive state but its
// lease and timestamps (lease renewals).
func renewals(states []*State) int {
	n := 0
	for i := 1; i < len(states); i++ {
		a, b := states[i-1], states[i]
		if a == nil || b == nil || b.Holder == "" {
			continue
		}
		x, y := *a, *b
		x.LeaseExpires, y.LeaseExpires, x.UpdatedAt, y.UpdatedAt, x.Generation, y.Generation = nil, nil, time.Time{}, time.Time{}, 0, 0
		if x.Holder == y.Holder && x.Step == y.Step && x.Steps == y.Steps && x.Phase == y.Phase && x.PlanID == y.PlanID &&
			x.Replicas == y.Replicas && x.PendingReplicas == y.PendingReplicas && x.NewReplicaSet == y.NewReplicaSet && x.HeldReason == y.HeldReason {
			n++
		}
	}
	return n
}

// TestRunDrivesToHandBack drives a full rollout against the fake cluster with a lease short
// enough that it is renewed between and during the steps (the renewal goroutine writes the
// drive state while the loop reads it: run under -race).
func TestRunDrivesToHandBack(t *testing.T) {
	f := newRunFixture(t)
	// The lease is renewed every 50ms of real time (a third of it), and lasts 1.5s of real
	// time by the slowed clock: renewals are many and a loaded machine does not expire it.
	p, res, err := f.drive(t, Options{LeaseDuration: 150 * time.Millisecond, Interval: 120 * time.Millisecond, Now: slowClock(10), Identity: "tester"})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if len(p.Steps) != 3 || p.Takeover == nil {
		t.Fatalf("prepared %d steps (takeover %v), want 3 with a takeover", len(p.Steps), p.Takeover != nil)
	}
	if res.Outcome != OutcomeComplete || res.StepsRun != 3 || res.Step != 3 || res.Steps != 3 || res.Revision != 2 {
		t.Errorf("result %+v, want Complete, 3 steps run, step 3 of 3, revision 2", res)
	}
	if got := f.fc.replicasOf(t, f.newName); got != 10 {
		t.Errorf("new ReplicaSet %s has %d replicas, want 10", f.newName, got)
	}
	if got := f.fc.replicasOf(t, f.old.Name); got != 0 {
		t.Errorf("old ReplicaSet %s has %d replicas, want 0", f.old.Name, got)
	}
	d := f.deployment(t)
	if _, held := d.Annotations[Annotation]; held || d.Spec.Paused || d.Spec.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType ||
		d.Spec.Strategy.RollingUpdate.MaxSurge.String() != "25%" || d.Spec.Template.Spec.Containers[0].Image != "nginx:1.19" {
		t.Errorf("handed back Deployment: annotations %v, paused %v, strategy %+v, image %s; want no drive annotation, unpaused, RollingUpdate 25%%/25%%, nginx:1.19",
			d.Annotations, d.Spec.Paused, d.Spec.Strategy, d.Spec.Template.Spec.Containers[0].Image)
	}
	if n := renewals(f.fc.recordedStates()); n < 1 {
		t.Errorf("%d lease renewals recorded, want some (renewed every 50ms, two bakes of 120ms)", n)
	}
}

// TestRunRenewsTheLeaseWhileBaking bakes between steps for more than two leases: only the
// renewals keep the lease valid for the writes of the next step (leaseOK refuses them
// otherwise and the run fails).
func TestRunRenewsTheLeaseWhileBaking(t *testing.T) {
	f := newRunFixture(t)
	// A renewal is due every lease/3 (500ms): the lease leaves it a full second of slack,
	// which a -race run on a loaded 2-core machine needs (600ms lapsed there).
	lease := 1500 * time.Millisecond
	_, res, err := f.drive(t, Options{LeaseDuration: lease, Interval: 2 * time.Second, Identity: "tester"})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if res.Outcome != OutcomeComplete || res.StepsRun != 3 {
		t.Fatalf("result %+v, want Complete after 3 steps", res)
	}
	// Two bakes of 2s with a renewal due every 500ms: about 8 renewals.
	if n := renewals(f.fc.recordedStates()); n < 5 {
		t.Errorf("%d renewals, want at least 5", n)
	}
}

// TestRunStopsWhenTheHoldIsLost has another driver rewrite the annotation after step 1
// while this one bakes: the run stops with StoppedError{Lost: true} and writes nothing more.
func TestRunStopsWhenTheHoldIsLost(t *testing.T) {
	f := newRunFixture(t)
	intruded := -1
	f.fc.afterDo = func(fc *fakeCluster, s *State) {
		if intruded < 0 && s != nil && s.Step == 1 && s.Holder == "tester" {
			fc.intrude("default", "web", func(s *State) {
				s.Holder, s.LastHolder = "other", "other"
				exp := time.Now().Add(time.Hour)
				s.LeaseExpires = &exp
			})
			intruded = len(fc.writes)
		}
	}
	_, res, err := f.drive(t, Options{LeaseDuration: 150 * time.Millisecond, Interval: 300 * time.Millisecond, Now: slowClock(10), Identity: "tester"})
	var se *StoppedError
	if !errors.As(err, &se) || !se.Lost {
		t.Fatalf("run: result %+v, error %v; want a StoppedError with Lost", res, err)
	}
	writes := f.fc.written()
	if intruded < 0 {
		t.Fatal("the intrusion did not happen")
	}
	if extra := writes[intruded:]; len(extra) > 0 {
		t.Errorf("writes after the hold was lost: %v", extra)
	}
	d := f.deployment(t)
	s, err := ReadState(d)
	if err != nil || s == nil || s.Holder != "other" || s.Step != 1 {
		t.Errorf("drive state after the stop: %+v (%v), want the other driver's hold at step 1 untouched", s, err)
	}
	if got := f.fc.replicasOf(t, f.newName); got != 3 {
		t.Errorf("new ReplicaSet has %d replicas, want 3 (step 1 only)", got)
	}
}

// testLog writes the driver's progress events to the test log (pkg/printer renders them;
// it imports drive, so these tests cannot).
func testLog(t *testing.T) func(Event) {
	return func(e Event) { t.Logf("%+v", e) }
}

// TestRunRenewalsInterleaveTheLoop is the race detector's test: three full drives whose
// lease is renewed every 10ms of real time (a third of 30ms) while the loop reads the held
// state between and during its steps, so an unsynchronized access of the state, the
// annotation value or the Deployment is seen under -race in every run. The clock runs 100
// times slower than real time, so the lease lasts 3s of real time: a loaded machine does
// not expire it.
func TestRunRenewalsInterleaveTheLoop(t *testing.T) {
	for i := range 3 {
		f := newRunFixture(t)
		_, res, err := f.drive(t, Options{LeaseDuration: 30 * time.Millisecond, Interval: 60 * time.Millisecond, Now: slowClock(100), Identity: "tester"})
		if err != nil {
			t.Fatalf("drive %d: %v", i+1, err)
		}
		if res.Outcome != OutcomeComplete || res.StepsRun != 3 {
			t.Fatalf("drive %d: result %+v, want Complete after 3 steps", i+1, res)
		}
		if n := renewals(f.fc.recordedStates()); n < 3 {
			t.Errorf("drive %d: %d lease renewals recorded, want at least 3 (every 10ms during two bakes of 60ms and the waits)", i+1, n)
		}
	}
}

// TestRunFieldManager: every write of a drive (the takeover, the new ReplicaSet, each scale,
// the state writes, the hand-back, the tidy) is recorded under Options.FieldManager, which
// reload --drive sets to rollplan-reload so that Flux does not take its fields over; without
// one, under kubectl-rollplan. The controllers' writes (the fake cluster's status updates)
// are not drive's and are left out.
func TestRunFieldManager(t *testing.T) {
	for _, tc := range []struct{ set, want string }{{"", kube.FieldManager}, {kube.ReloadFieldManager, kube.ReloadFieldManager}} {
		f := newRunFixture(t)
		before := len(f.fc.cs.Actions())
		if _, res, err := f.drive(t, Options{Identity: "tester", FieldManager: tc.set}); err != nil || res.Outcome != OutcomeComplete {
			t.Fatalf("FieldManager %q: %+v, %v", tc.set, res, err)
		}
		managers := map[string]int{}
		for _, a := range f.fc.cs.Actions()[before:] {
			if a.GetSubresource() != "" || (a.GetResource().Resource != "deployments" && a.GetResource().Resource != "replicasets") {
				continue
			}
			switch a := a.(type) {
			case k8stesting.PatchActionImpl:
				managers[a.PatchOptions.FieldManager]++
			case k8stesting.CreateActionImpl:
				managers[a.CreateOptions.FieldManager]++
			case k8stesting.UpdateActionImpl:
				managers[a.UpdateOptions.FieldManager]++
			}
		}
		if len(managers) != 1 || managers[tc.want] < 5 {
			t.Errorf("FieldManager %q: writes by field manager %v; want every one (5 or more) under %q", tc.set, managers, tc.want)
		}
	}
}

// TestRunProgressTimeoutOutlastsRenewals: a step whose pods never become available holds at
// the progress timeout although the lease is renewed many times during the wait. Each
// renewal bumps the Deployment's generation, and the watch can show that generation before
// the renewal's answer is stored; it is the driver's own write (its annotation records that
// generation), not an edit to re-plan for. Re-planning on it restarted the step's wait, so a
// progress timeout longer than a third of the lease never came (seen on the local cluster:
// --progress-timeout 65s, still waiting after 10 minutes).
func TestRunProgressTimeoutOutlastsRenewals(t *testing.T) {
	f := newRunFixture(t)
	f.fc.mu.Lock()
	f.fc.unready = map[string]bool{f.newName: true}
	f.fc.answerDelay = 30 * time.Millisecond // the renewal's watch event comes before its answer
	f.fc.mu.Unlock()
	began := time.Now()
	_, res, err := f.drive(t, Options{Identity: "tester", LeaseDuration: 300 * time.Millisecond, ProgressTimeout: 2 * time.Second})
	took := time.Since(began)
	if err != nil || res.Outcome != OutcomeHeld || !strings.Contains(res.Reason, "timed out") {
		t.Fatalf("after %s: %+v, %v; want held: step 1/3 timed out", took, res, err)
	}
	if took > 10*time.Second {
		t.Errorf("held after %s, want about the 2s progress timeout", took)
	}
}
