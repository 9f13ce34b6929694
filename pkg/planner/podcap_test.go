package planner_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

func TestPodCap(t *testing.T) {
	d := web(3).MaxSurge("1").MaxUnavailable("0").Build()
	old := oldRS(d, "nginx:1.18", 1, 1).Build()
	// No new pod can run: the surge pod never becomes available, no old pod may go.
	noNew := func(names []string, replicas []int32) []int32 {
		caps := make([]int32, len(replicas))
		for i, n := range names {
			if n == old.Name {
				caps[i] = replicas[i]
			}
		}
		return caps
	}
	p := simulate(t, planner.Input{Deployment: d, ReplicaSets: rsList(old), PodCap: noNew})
	if p.Outcome != planner.OutcomeStalled || len(p.Steps) != 1 {
		t.Fatalf("Outcome %s after %d steps, want Stalled after 1", p.Outcome, len(p.Steps))
	}
	if diff := cmp.Diff(r(3, 1), p.Steps[0].Replicas); diff != "" {
		t.Errorf("step 1 (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(r(3, 0), p.FinalAvailable); diff != "" {
		t.Errorf("FinalAvailable (-want +got):\n%s", diff)
	}
	// A cap that holds nothing back gives the plan without a cap.
	all := func(_ []string, replicas []int32) []int32 { return replicas }
	want := simulate(t, planner.Input{Deployment: d, ReplicaSets: rsList(old)})
	got := simulate(t, planner.Input{Deployment: d, ReplicaSets: rsList(old), PodCap: all})
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("plan with a cap of every pod (-want +got):\n%s", diff)
	}
	_, err := planner.Simulate(planner.Input{Deployment: d, ReplicaSets: rsList(old), PodCap: all,
		Readiness: planner.ReadinessTimed, Timing: &planner.Timing{ReadyAfter: []time.Duration{time.Second}}})
	if err == nil {
		t.Error("PodCap under ReadinessTimed: no error")
	}
}
