package printer

import (
	"bytes"
	"testing"
	"time"

	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/estimate"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

func TestPrintETA(t *testing.T) {
	cases := []struct {
		name string
		p    planner.Plan
		want string
	}{
		{"complete", planner.Plan{Outcome: planner.OutcomeComplete, Duration: 4500 * time.Millisecond},
			"ETA:    4.5s after the change: the Deployment is complete (every pod updated and available).\n"},
		{"stalled past the deadline", planner.Plan{Outcome: planner.OutcomeStalled, Duration: 12 * time.Second,
			ProgressDeadlineSeconds: ptr.To[int32](60), ProgressDeadlineAt: ptr.To(72 * time.Second)},
			"ETA:    none: the rollout stops at 12s without completing.\n" +
				"Deadline: at 1m12s the controller sets Progressing=False with reason ProgressDeadlineExceeded (60s without progress): 'kubectl rollout status' fails then.\n"},
		{"paused", planner.Plan{Outcome: planner.OutcomePaused},
			"ETA:    none while paused: the paused controller is done at 0s.\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			printETA(&b, &tc.p)
			if b.String() != tc.want {
				t.Errorf("got\n%q\nwant\n%q", b.String(), tc.want)
			}
		})
	}
}

func TestTimedNote(t *testing.T) {
	p := &planner.Plan{MinReadySeconds: 5}
	e := &estimate.Estimate{Source: estimate.SourcePods, Min: time.Second, Median: 2 * time.Second, Max: 3 * time.Second, Samples: 7, ReplicaSets: []string{"web-a", "web-b"}}
	want := "pods Ready 2s after creation (median; 1s..3s), measured on 7 pods of web-a, web-b with one extra LIST of pods; available 5s later (minReadySeconds)"
	if got := timedNote(p, e); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	obj := NewPlanTiming(e, 5)
	if obj.Source != "pods" || obj.Samples != 7 || obj.MinReadySeconds != 5 || obj.ReadyAfterMedian.Duration != 2*time.Second || len(obj.ReplicaSets) != 2 {
		t.Errorf("NewPlanTiming = %+v", obj)
	}
}

func TestLatencyNote(t *testing.T) {
	cases := map[string]struct {
		l    estimate.Latency
		want string
	}{
		"fitted": {estimate.Latency{Source: estimate.LatencyRollout, PerWrite: 450 * time.Millisecond, ReplicaSet: "web-a", Took: 10 * time.Second, Modelled: 8200 * time.Millisecond, Waves: 4},
			"450ms per write (the controllers' reaction: pod creation, status updates, the next sync), fitted to the last rollout (web-a): it took 10s (second precision), the model gives it 8.2s without latency (4.0 waves)"},
		"flag": {estimate.Latency{Source: estimate.LatencyFlag, PerWrite: time.Second},
			"1s per write (the controllers' reaction: pod creation, status updates, the next sync), per --sync-latency"},
		"none": {estimate.Latency{Why: "the Deployment is paused"},
			"0 per write, not measured: the Deployment is paused (--sync-latency sets the controllers' reaction time per write)"},
	}
	for name, tc := range cases {
		if got := LatencyNote(tc.l); got != tc.want {
			t.Errorf("%s: got %q, want %q", name, got, tc.want)
		}
	}
	e := &estimate.Estimate{Source: estimate.SourceFlag, Latency: cases["fitted"].l}
	obj := NewPlanTiming(e, 0)
	if obj.SyncLatency.Duration != 450*time.Millisecond || obj.SyncLatencySource != "rollout" || obj.SyncLatencyReplicaSet != "web-a" ||
		obj.SyncLatencyTook == nil || obj.SyncLatencyTook.Duration != 10*time.Second || obj.SyncLatencyModelled == nil {
		t.Errorf("NewPlanTiming = %+v", obj)
	}
}
