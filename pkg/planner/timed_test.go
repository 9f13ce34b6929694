package planner_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"

	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// timedStep is a step as the timed tables write it: ReplicaSet index, from, to, when.
type timedStep struct {
	RS       int
	From, To int32
	At       time.Duration
}

func timedSteps(p *planner.Plan) []timedStep {
	var out []timedStep
	for _, st := range p.Steps {
		out = append(out, timedStep{st.ReplicaSet, st.From, st.To, st.At})
	}
	return out
}

func timed(readyAfter ...time.Duration) *planner.Timing {
	return &planner.Timing{ReadyAfter: readyAfter}
}

const s = time.Second

func TestSimulateTimed(t *testing.T) {
	cases := []struct {
		name         string
		in           func() planner.Input
		wantSteps    []timedStep
		wantOutcome  planner.Outcome
		wantDuration time.Duration
		wantDeadline *time.Duration
	}{
		{
			// 10 replicas 25%/25% (maxSurge 3, maxUnavailable 2, minAvailable 8), every pod
			// Ready 2 s after it is created:
			//  t=0  sync 1 creates new at 3 and scales old 10->8 (13-8-3 = 2 may go); sync 2
			//       scales new 3->5 (13-11 = 2 more); sync 3: 13 pods, 5 new unavailable, waits.
			//  t=2  the 5 new pods are available: old 8->3 (13-8-0 = 5), then new 5->10.
			//  t=4  the 5 newer pods are available: old 3->0. Complete at 4 s.
			name: "10 replicas 25%/25%, 2 s readiness: the batched writes at 0, 2 and 4 s",
			in: func() planner.Input {
				d := web(10).Build()
				return planner.Input{Deployment: d, ReplicaSets: rsList(oldRS(d, "nginx:1.18", 1, 0).Build()), Readiness: planner.ReadinessTimed, Timing: timed(2 * s)}
			},
			wantSteps: []timedStep{
				{1, 0, 3, 0}, {0, 10, 8, 0}, {1, 3, 5, 0},
				{0, 8, 3, 2 * s}, {1, 5, 10, 2 * s},
				{0, 3, 0, 4 * s},
			},
			wantOutcome:  planner.OutcomeComplete,
			wantDuration: 4 * s,
		},
		{
			// The same rollout with a sync latency of 500 ms: the pods each write asks for
			// start 0.5 s after it. t=0 the writes of t=0 (pods created at 0.5 s, Ready at
			// 2.5 s); t=2.5 old 8->3, new 5->10 (created at 3 s, Ready at 5 s); t=5 old 3->0.
			// Complete at 5 s: two waves of 2 s + 0.5 s.
			name: "10 replicas 25%/25%, 2 s readiness, 500 ms sync latency: writes at 0, 2.5 and 5 s",
			in: func() planner.Input {
				d := web(10).Build()
				tm := timed(2 * s)
				tm.SyncLatency = 500 * time.Millisecond
				return planner.Input{Deployment: d, ReplicaSets: rsList(oldRS(d, "nginx:1.18", 1, 0).Build()), Readiness: planner.ReadinessTimed, Timing: tm}
			},
			wantSteps: []timedStep{
				{1, 0, 3, 0}, {0, 10, 8, 0}, {1, 3, 5, 0},
				{0, 8, 3, 2500 * time.Millisecond}, {1, 5, 10, 2500 * time.Millisecond},
				{0, 3, 0, 5 * s},
			},
			wantOutcome:  planner.OutcomeComplete,
			wantDuration: 5 * s,
		},
		{
			// maxSurge 0 (maxUnavailable 2), 10 replicas, 2 s readiness, 1 s sync latency: the
			// new ReplicaSet created at 0, then five waves of old -2 and new +2, each 2 s + 1 s:
			// complete at 15 s.
			name: "maxSurge 0, 2 s readiness, 1 s sync latency: five waves of 3 s",
			in: func() planner.Input {
				d := web(10).Strategy(testutil.RollingUpdate("0", "25%")).Build()
				tm := timed(2 * s)
				tm.SyncLatency = s
				return planner.Input{Deployment: d, ReplicaSets: rsList(oldRS(d, "nginx:1.18", 1, 0).Build()), Readiness: planner.ReadinessTimed, Timing: tm}
			},
			wantSteps: []timedStep{
				{1, 0, 0, 0}, {0, 10, 8, 0}, {1, 0, 2, 0},
				{0, 8, 6, 3 * s}, {1, 2, 4, 3 * s},
				{0, 6, 4, 6 * s}, {1, 4, 6, 6 * s},
				{0, 4, 2, 9 * s}, {1, 6, 8, 9 * s},
				{0, 2, 0, 12 * s}, {1, 8, 10, 12 * s},
			},
			wantOutcome:  planner.OutcomeComplete,
			wantDuration: 15 * s,
		},
		{
			// 3 replicas, maxSurge 1, maxUnavailable 0; pods alternate 1 s and 3 s to Ready:
			//  t=0  create new at 1 (pod 0: Ready at 1 s); 4 pods, nothing may go.
			//  t=1  pod 0 available: old 3->2 (4-3-0 = 1), new 1->2 (pod 1: 1+3 = 4 s).
			//  t=4  pod 1 available: old 2->1, new 2->3 (pod 2: 4+1 = 5 s).
			//  t=5  pod 2 available: old 1->0. Complete at 5 s.
			name: "maxSurge 1 maxUnavailable 0, pods Ready after 1 s and 3 s in turn: one write per pod",
			in: func() planner.Input {
				d := web(3).Strategy(testutil.RollingUpdate("1", "0")).Build()
				return planner.Input{Deployment: d, ReplicaSets: rsList(oldRS(d, "nginx:1.18", 1, 0).Build()), Readiness: planner.ReadinessTimed, Timing: timed(1*s, 3*s)}
			},
			wantSteps: []timedStep{
				{1, 0, 1, 0},
				{0, 3, 2, 1 * s}, {1, 1, 2, 1 * s},
				{0, 2, 1, 4 * s}, {1, 2, 3, 4 * s},
				{0, 1, 0, 5 * s},
			},
			wantOutcome:  planner.OutcomeComplete,
			wantDuration: 5 * s,
		},
		{
			// Recreate, minReadySeconds 5, Ready after 2 s: old 2->0 and, once its pods are
			// gone (at once here), new at 2; Ready at 2 s, available at 7 s.
			name: "Recreate with minReadySeconds 5: available 5 s after Ready",
			in: func() planner.Input {
				d := web(2).Strategy(testutil.Recreate()).MinReadySeconds(5).Build()
				return planner.Input{Deployment: d, ReplicaSets: rsList(oldRS(d, "nginx:1.18", 1, 0).Build()), Readiness: planner.ReadinessTimed, Timing: timed(2 * s)}
			},
			wantSteps:    []timedStep{{0, 2, 0, 0}, {1, 0, 2, 0}},
			wantOutcome:  planner.OutcomeComplete,
			wantDuration: 7 * s,
		},
		{
			// progressDeadlineSeconds 3, pods Ready after 5 s: the last progress is at 0 (the
			// writes and pod changes of t=0), nothing happens until 5 s, so the deadline passes
			// at 0+3 = 3 s; the rollout goes on and completes at 10 s.
			name: "progressDeadlineSeconds 3 with 5 s readiness: ProgressDeadlineExceeded at 3 s, Complete at 10 s",
			in: func() planner.Input {
				d := web(10).ProgressDeadlineSeconds(3).Build()
				return planner.Input{Deployment: d, ReplicaSets: rsList(oldRS(d, "nginx:1.18", 1, 0).Build()), Readiness: planner.ReadinessTimed, Timing: timed(5 * s)}
			},
			wantSteps: []timedStep{
				{1, 0, 3, 0}, {0, 10, 8, 0}, {1, 3, 5, 0},
				{0, 8, 3, 5 * s}, {1, 5, 10, 5 * s},
				{0, 3, 0, 10 * s},
			},
			wantOutcome:  planner.OutcomeComplete,
			wantDuration: 10 * s,
			wantDeadline: ptr.To(3 * s),
		},
		{
			// The case: the only ReplicaSet is the new one, at spec.replicas (6) with
			// 2 available, and a stale desired-replicas annotation (12). Every sync is a
			// scaling event; scale() leaves the lone ReplicaSet alone, and the status
			// sync counts its pods as updated: complete once the 4 pods are available (3 s).
			// No write at all: NoChange. sync() never checks the deadline.
			name: "stale desired-replicas on the lone new ReplicaSet: complete once its pods are available",
			in: func() planner.Input {
				d := web(6).Build()
				cur := newRS(d, 5, 0).Replicas(6).Available(2).DesiredReplicas(12).MaxReplicas(12).Build()
				return planner.Input{Deployment: d, ReplicaSets: rsList(cur), Readiness: planner.ReadinessTimed, Timing: timed(3 * s)}
			},
			wantOutcome:  planner.OutcomeNoChange,
			wantDuration: 3 * s,
		},
		{
			// A real scaling deadlock: the lone active ReplicaSet is an old one with a stale
			// annotation: scale() leaves it, the new ReplicaSet is never created, and the
			// controller never checks the deadline on the sync() path.
			name: "stale desired-replicas on the lone old ReplicaSet: Stalled, no deadline",
			in: func() planner.Input {
				d := web(4).Build()
				old := oldRS(d, "nginx:1.18", 1, 0).Replicas(4).DesiredReplicas(8).Build()
				return planner.Input{Deployment: d, ReplicaSets: rsList(old), Readiness: planner.ReadinessTimed, Timing: timed(3 * s)}
			},
			wantOutcome: planner.OutcomeStalled,
		},
		{
			// Pending: the existing new ReplicaSet's unavailable pod has been Ready for 1 s
			// (offset -1 s), minReadySeconds 3: available at 2 s; then old 1->0.
			name: "Pending: an existing pod Ready 1 s ago with minReadySeconds 3 is available at 2 s",
			in: func() planner.Input {
				d := web(2).Strategy(testutil.RollingUpdate("0", "1")).MinReadySeconds(3).Build()
				old := oldRS(d, "nginx:1.18", 1, 0).Replicas(1).Build()
				cur := newRS(d, 2, 1).Replicas(1).Available(0).Build()
				tm := timed(10 * s)
				tm.Pending = map[string][]time.Duration{cur.Name: {-1 * s}}
				return planner.Input{Deployment: d, ReplicaSets: rsList(old, cur), Readiness: planner.ReadinessTimed, Timing: tm}
			},
			// t=0: minAvailable 1, available 1 (old): nothing may go; new 1->2 (2 total, 0
			// surge: no). Old: 2-1-1 = 0. t=2: new pod available: old 1->0 (2-1-0 = 1), new
			// 1->2 (pod Ready at 12 s, available at 15 s). Complete at 15 s.
			wantSteps:    []timedStep{{0, 1, 0, 2 * s}, {1, 1, 2, 2 * s}},
			wantOutcome:  planner.OutcomeComplete,
			wantDuration: 15 * s,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := simulate(t, tc.in())
			if diff := cmp.Diff(tc.wantSteps, timedSteps(p)); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
			if p.Outcome != tc.wantOutcome || p.Duration != tc.wantDuration {
				t.Errorf("outcome %s after %s (%s), want %s after %s", p.Outcome, p.Duration, p.StalledReason, tc.wantOutcome, tc.wantDuration)
			}
			if diff := cmp.Diff(tc.wantDeadline, p.ProgressDeadlineAt); diff != "" {
				t.Errorf("ProgressDeadlineAt (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSimulateTimedErrors(t *testing.T) {
	d := web(3).Build()
	for name, tm := range map[string]*planner.Timing{"no timing": nil, "empty": timed(), "negative": timed(-s),
		"negative latency": {ReadyAfter: []time.Duration{s}, SyncLatency: -s}} {
		_, err := planner.Simulate(planner.Input{Deployment: d, Readiness: planner.ReadinessTimed, Timing: tm})
		if err == nil || !strings.Contains(err.Error(), "readiness timed") {
			t.Errorf("%s: err = %v, want one naming readiness timed", name, err)
		}
	}
}

// TestStalledReasonWaitsForPods is the case under never: the plan still stalls (no
// pod becomes available under never), but it says it waits for pods, not for the annotation.
func TestStalledReasonWaitsForPods(t *testing.T) {
	d := web(6).Build()
	cur := newRS(d, 5, 0).Replicas(6).Available(2).DesiredReplicas(12).MaxReplicas(12).Build()
	for _, r := range []planner.Readiness{planner.ReadinessNever, planner.ReadinessInstant} {
		p := simulate(t, planner.Input{Deployment: d, ReplicaSets: rsList(cur), Readiness: r})
		want := "4 of 6 pods are not available under this readiness model; the controller has nothing more to write: the rollout is complete as soon as they are"
		if p.Outcome != planner.OutcomeStalled || p.StalledReason != want {
			t.Errorf("%s: %s %q, want Stalled %q", r, p.Outcome, p.StalledReason, want)
		}
	}
	p := simulate(t, planner.Input{Deployment: d, ReplicaSets: rsList(cur), Readiness: planner.ReadinessBatched})
	if p.Outcome != planner.OutcomeNoChange {
		t.Errorf("batched: %s, want NoChange (the pods become available, nothing is written)", p.Outcome)
	}
}
