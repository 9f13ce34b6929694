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
