package status

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/deployutil"
	"github.com/rollplan/kubectl-rollplan/pkg/estimate"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// TestStartStateCreated: mid-rollout (new 5, old 6) the start is old at 10 with every pod
// available and no new ReplicaSet; the plan from there creates the live new ReplicaSet's name.
func TestStartStateCreated(t *testing.T) {
	d, rss := point{oldReplicas: 6, oldAvailable: 6, newReplicas: 5, newAvailable: 2, observed: true}.state(testutil.RollingUpdate("25%", "25%"))
	in := StartState(d, rss)
	if len(in.ReplicaSets) != 1 || in.ReplicaSets[0].Name != rss[0].Name {
		t.Fatalf("start ReplicaSets %v, want the old one alone", in.ReplicaSets)
	}
	old := in.ReplicaSets[0]
	if got := []int32{ptr.Deref(old.Spec.Replicas, -1), old.Status.Replicas, old.Status.AvailableReplicas}; !cmp.Equal(got, []int32{10, 10, 10}) {
		t.Errorf("old at start: spec, status, available %v, want 10 10 10", got)
	}
	if ptr.Deref(rss[0].Spec.Replicas, -1) != 6 {
		t.Error("StartState modified the live ReplicaSet")
	}
	p, err := planner.Simulate(in)
	if err != nil {
		t.Fatal(err)
	}
	if p.NewReplicaSet.Name != rss[1].Name || !p.NewReplicaSet.Created || p.NewReplicaSet.Revision != 2 {
		t.Errorf("planned new ReplicaSet %+v, want %s created with revision 2", p.NewReplicaSet, rss[1].Name)
	}
}

// TestStartStateReused: a rollback reuses revision 1's ReplicaSet (now revision 3, history
// "1"); at the start it is the old revision 1 at 0, and the previous one (revision 2) at 10.
func TestStartStateReused(t *testing.T) {
	d, rss := point{oldReplicas: 8, oldAvailable: 8, newReplicas: 3, observed: true}.state(testutil.RollingUpdate("25%", "25%"))
	reused, prev := rss[1], rss[0]
	reused.CreationTimestamp = testutil.Time(-10)
	reused.Annotations[deployutil.RevisionAnnotation] = "3"
	reused.Annotations[deployutil.RevisionHistoryAnnotation] = "1"
	prev.Annotations[deployutil.RevisionAnnotation] = "2"
	in := StartState(d, rss)
	if len(in.ReplicaSets) != 2 {
		t.Fatalf("start has %d ReplicaSets, want 2", len(in.ReplicaSets))
	}
	for _, rs := range in.ReplicaSets {
		rev, _ := deployutil.Revision(rs)
		switch rs.Name {
		case reused.Name:
			if ptr.Deref(rs.Spec.Replicas, -1) != 0 || rev != 1 || rs.Annotations[deployutil.RevisionHistoryAnnotation] != "" {
				t.Errorf("reused at start: %d replicas, revision %d, history %q; want 0, 1, none",
					ptr.Deref(rs.Spec.Replicas, -1), rev, rs.Annotations[deployutil.RevisionHistoryAnnotation])
			}
		case prev.Name:
			if ptr.Deref(rs.Spec.Replicas, -1) != 10 || rev != 2 {
				t.Errorf("previous at start: %d replicas, revision %d; want 10, 2", ptr.Deref(rs.Spec.Replicas, -1), rev)
			}
		}
	}
	p, err := planner.Simulate(in)
	if err != nil {
		t.Fatal(err)
	}
	if !p.NewReplicaSet.Reused || p.NewReplicaSet.Revision != 3 || p.NewReplicaSet.Name != reused.Name {
		t.Errorf("planned new ReplicaSet %+v, want %s reused as revision 3", p.NewReplicaSet, reused.Name)
	}
	if got := Reached(p, rss, reused.Name); got != 2 {
		t.Errorf("reached %d steps of %d, want 2 (new 0 -> 3, old 10 -> 8)", got, len(p.Steps))
	}
}

// TestLastRollout: a complete rollout of 10 replicas (25%/25%) whose new ReplicaSet was
// created at minute 5 and completed at minute 6 (the Progressing condition) took 1 minute
// from StartState; with 2 s pod readiness the model gives it 4 s in two waves, so the sync
// latency fitted is (60-4)/2 = 28 s. A rollout in flight, one whose condition names another
// ReplicaSet, a paused Deployment and a reused ReplicaSet give none, with why.
func TestLastRollout(t *testing.T) {
	complete := func() (*appsv1.Deployment, []*appsv1.ReplicaSet) {
		d, rss := point{newReplicas: 10, newAvailable: 10, observed: true, reason: NewRSAvailableReason}.state(testutil.RollingUpdate("25%", "25%"))
		d.Status.Conditions[0].Message = fmt.Sprintf("ReplicaSet %q has successfully progressed.", rss[1].Name)
		return d, rss
	}
	d, rss := complete()
	r, ok, why := LastRollout(d, rss)
	if !ok || r.ReplicaSet != rss[1].Name || r.Took != time.Minute || len(r.Start.ReplicaSets) != 1 || ptr.Deref(r.Start.ReplicaSets[0].Spec.Replicas, 0) != 10 {
		t.Fatalf("LastRollout = %+v, %v, %q; want %s, 1m, from the old ReplicaSet at 10", r, ok, why, rss[1].Name)
	}
	e, err := estimate.ParseReadyAfter("2s")
	if err != nil {
		t.Fatal(err)
	}
	if l := SyncLatency(d, rss, e); l.Source != estimate.LatencyRollout || l.PerWrite != 28*time.Second || l.Modelled != 4*time.Second || l.Waves != 2 {
		t.Errorf("SyncLatency = %+v, want 28s per write over 2 waves (4s modelled)", l)
	}

	cases := map[string]struct {
		change func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet)
		why    string
	}{
		"in flight": {func(d *appsv1.Deployment, _ []*appsv1.ReplicaSet) {
			d.Status.Conditions[0].Reason = "ReplicaSetUpdated"
		}, "is not complete"},
		"the condition names another ReplicaSet": {func(d *appsv1.Deployment, _ []*appsv1.ReplicaSet) {
			d.Status.Conditions[0].Message = `ReplicaSet "web-other" has successfully progressed.`
		}, "is not complete"},
		"paused": {func(d *appsv1.Deployment, _ []*appsv1.ReplicaSet) { d.Spec.Paused = true }, "paused"},
		"reused (a rollback)": {func(_ *appsv1.Deployment, rss []*appsv1.ReplicaSet) {
			rss[1].CreationTimestamp = testutil.Time(-1)
		}, "was reused"},
	}
	for name, tc := range cases {
		d, rss := complete()
		tc.change(d, rss)
		_, ok, why := LastRollout(d, rss)
		if ok || !strings.Contains(why, tc.why) {
			t.Errorf("%s: ok %v, why %q; want none, %q", name, ok, why, tc.why)
		}
		if l := SyncLatency(d, rss, e); l.Source != estimate.LatencyNone || l.PerWrite != 0 || l.Why != why {
			t.Errorf("%s: SyncLatency %+v, want none saying %q", name, l, why)
		}
	}
}

// TestLatenciesKept: the latency fitted to the complete rollout (28 s per write, as in
// TestLastRollout) is kept once the next rollout is in flight, when the objects no longer
// show the last one whole, and the ETA's basis says so; --sync-latency wins; a rollout
// complete again is fitted again.
func TestLatenciesKept(t *testing.T) {
	d, rss := point{newReplicas: 10, newAvailable: 10, observed: true, reason: NewRSAvailableReason}.state(testutil.RollingUpdate("25%", "25%"))
	d.Status.Conditions[0].Message = fmt.Sprintf("ReplicaSet %q has successfully progressed.", rss[1].Name)
	e, err := estimate.ParseReadyAfter("2s")
	if err != nil {
		t.Fatal(err)
	}
	kept := Latencies{}
	var o Options
	used := o.UseTimedModel(&cluster.State{Deployment: d, ReplicaSets: rss}, nil, &e, kept.For(d, nil), testutil.Time(10).Time)
	kept.Keep(d, used)
	if used.PerWrite != 28*time.Second {
		t.Fatalf("complete: latency %+v, want 28s fitted", used)
	}

	inFlight, rss2 := point{newReplicas: 5, newAvailable: 0, observed: true, reason: "ReplicaSetUpdated"}.state(testutil.RollingUpdate("25%", "25%"))
	if l := SyncLatency(inFlight, rss2, e); l.Source != estimate.LatencyNone {
		t.Fatalf("in flight, fitted from its objects: %+v, want none", l)
	}
	o = Options{}
	used = o.UseTimedModel(&cluster.State{Deployment: inFlight, ReplicaSets: rss2}, nil, &e, kept.For(inFlight, nil), testutil.Time(10).Time)
	kept.Keep(inFlight, used)
	if used.PerWrite != 28*time.Second || !strings.Contains(o.RestBasis, "28s per write (fitted to the last rollout)") {
		t.Errorf("in flight: latency %+v, basis %q; want the kept 28s", used, o.RestBasis)
	}
	flag := estimate.Latency{Source: estimate.LatencyFlag, PerWrite: time.Second}
	if l := kept.For(inFlight, &flag); l.PerWrite != time.Second {
		t.Errorf("--sync-latency 1s: For = %+v, want it", l)
	}
	if l := kept.For(d, nil); l != nil {
		t.Errorf("complete: For = %+v, want nil (fit again)", l)
	}
	other := inFlight.DeepCopy()
	other.UID = "another"
	if l := kept.For(other, nil); l != nil {
		t.Errorf("a Deployment recreated under the same name: For = %+v, want nil", l)
	}
}
