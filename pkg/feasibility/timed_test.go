package feasibility_test

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// TestTimedQuotaStall: under the timed model the quota stall is found and its step is a step
// of the timed plan (the one printed) whose replicas are where the rollout stops.
func TestTimedQuotaStall(t *testing.T) {
	r := rollout{surge: "1", unavailable: "0", cpu: "100m", replicas: 3}
	in := r.input(quotaOnly([]corev1.LimitRange{}, quota("compute", list("pods", "3"), list("pods", "3"))))
	in.Plan.Readiness = planner.ReadinessTimed
	in.Plan.Timing = &planner.Timing{ReadyAfter: []time.Duration{10 * time.Second}}
	base, err := planner.Simulate(in.Plan)
	if err != nil {
		t.Fatal(err)
	}
	res := check(t, in)
	if res.Stall == nil || res.Stall.Step < 1 || res.Stall.Step > len(base.Steps) {
		t.Fatalf("Stall = %+v, want a step of the %d-step timed plan", res.Stall, len(base.Steps))
	}
	if got := base.Steps[res.Stall.Step-1].Replicas; len(got) != 2 || got[0] != 3 || got[1] != 1 {
		t.Errorf("timed step %d has replicas %v, want [3 1] (the refused create)", res.Stall.Step, got)
	}
	if res.Plan != nil {
		t.Errorf("Plan replaced under the timed model: %+v", res.Plan)
	}
}
