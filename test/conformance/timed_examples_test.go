package conformance

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/estimate"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/test/conformance/upstream/deployment"
)

// TestTimedExamples runs worked examples of the timed model through the controller and the
// planner, and pins the controller's side (the referee) on times derived by hand.
func TestTimedExamples(t *testing.T) {
	const s = time.Second
	twenty := func(surge, unavailable string) func() *fixture {
		return func() *fixture {
			f := newFixture("web", 20, "app:v2").rollingUpdate(surge, unavailable)
			desired, max := f.scaledAt(20)
			f.addRS(rsOpts{image: "app:v1", replicas: 20, available: 20, revision: 1, desired: desired, max: max})
			return f.finish(true)
		}
	}
	ten := func(pds *int32) func() *fixture {
		return func() *fixture {
			f := newFixture("web", 10, "app:v2").rollingUpdate("25%", "25%")
			f.d.Spec.ProgressDeadlineSeconds = pds
			desired, max := f.scaledAt(10)
			f.addRS(rsOpts{image: "app:v1", replicas: 10, available: 10, revision: 1, desired: desired, max: max})
			return f.finish(true)
		}
	}
	staleLone := func() *fixture {
		// Issue 10: the only ReplicaSet is the new one at spec.replicas (6), 2 available, with
		// desired-replicas 12.
		f := newFixture("web", 6, "app:v1").rollingUpdate("25%", "25%")
		desired, max := f.scaledAt(12)
		f.addRS(rsOpts{image: "app:v1", replicas: 6, available: 2, revision: 1, desired: desired, max: max})
		return f.finish(false)
	}
	spread := estimate.Spread(time.Second, 4*time.Second)
	cases := []struct {
		name       string
		build      func() *fixture
		readyAfter []time.Duration
		// Checked on the controller's side when set.
		wantAt       []time.Duration
		wantDuration time.Duration
		wantDeadline *time.Duration
		wantOutcome  planner.Outcome
	}{
		{name: "10 replicas 25%/25%, 2 s: writes at 0, 0, 0, 2, 2, 4 s", build: ten(ptr.To[int32](600)), readyAfter: []time.Duration{2 * s},
			wantAt: []time.Duration{0, 0, 0, 2 * s, 2 * s, 4 * s}, wantDuration: 4 * s, wantOutcome: planner.OutcomeComplete},
		{name: "10 replicas 25%/25%, 5 s, progressDeadlineSeconds 3: the deadline passes at 3 s", build: ten(ptr.To[int32](3)), readyAfter: []time.Duration{5 * s},
			wantAt: []time.Duration{0, 0, 0, 5 * s, 5 * s, 10 * s}, wantDuration: 10 * s, wantDeadline: ptr.To(3 * s), wantOutcome: planner.OutcomeComplete},
		{name: "stale desired-replicas on the lone new ReplicaSet: complete at 3 s without a write", build: staleLone, readyAfter: []time.Duration{3 * s},
			wantDuration: 3 * s, wantOutcome: planner.OutcomeNoChange},
		{name: "20 replicas 25%/25%, 2 s", build: twenty("25%", "25%"), readyAfter: []time.Duration{2 * s}},
		{name: "20 replicas maxSurge 0, 2 s", build: twenty("0", "25%"), readyAfter: []time.Duration{2 * s}},
		{name: "20 replicas maxUnavailable 0, 2 s", build: twenty("25%", "0"), readyAfter: []time.Duration{2 * s}},
		{name: "20 replicas 25%/25%, 1..4 s", build: twenty("25%", "25%"), readyAfter: spread},
		{name: "20 replicas maxSurge 0, 1..4 s", build: twenty("0", "25%"), readyAfter: spread},
		{name: "20 replicas maxUnavailable 0, 1..4 s", build: twenty("25%", "0"), readyAfter: spread},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.build()
			tm := &planner.Timing{ReadyAfter: tc.readyAfter}
			sc := &scenario{Name: tc.name, Readiness: planner.ReadinessTimed, Deployment: f.d, ReplicaSets: f.rss, Timing: tm}
			want, diff, err := checkOutcome(sc)
			if diff != "" || err != nil {
				report(t, sc, diff, err)
				return
			}
			if tc.wantOutcome == "" {
				return
			}
			var at []time.Duration
			for _, st := range want.Steps {
				at = append(at, st.At)
			}
			if d := cmp.Diff(tc.wantAt, at); d != "" || want.Duration != tc.wantDuration || want.Outcome != tc.wantOutcome {
				t.Errorf("controller: outcome %s after %s, writes at (-want +got):\n%s; want %s after %s", want.Outcome, want.Duration, d, tc.wantOutcome, tc.wantDuration)
			}
			if d := cmp.Diff(tc.wantDeadline, want.ProgressDeadlineAt); d != "" {
				t.Errorf("controller: progress deadline (-want +got):\n%s", d)
			}
		})
	}
	// The state under never: the controller and the planner both end Stalled (no pod
	// becomes available), and the planner says it waits for pods.
	f := staleLone()
	plan, err := planner.Simulate(planner.Input{Deployment: f.d, ReplicaSets: f.rss, Readiness: planner.ReadinessNever})
	if err != nil {
		t.Fatal(err)
	}
	res, err := deployment.Run(context.Background(), f.scenario(deployment.ReadinessNever))
	if err != nil {
		t.Fatal(err)
	}
	if want := "4 of 6 pods are not available under this readiness model; the controller has nothing more to write: the rollout is complete as soon as they are"; plan.Outcome != planner.OutcomeStalled || plan.StalledReason != want || res.StatusComplete {
		t.Errorf("never: planner %s %q, controller complete %v; want Stalled %q and not complete", plan.Outcome, plan.StalledReason, res.StatusComplete, want)
	}
}
