package feasibility

import (
	"testing"

	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

func plan(steps ...[]int32) *planner.Plan {
	p := &planner.Plan{}
	for _, r := range steps {
		p.Steps = append(p.Steps, planner.Step{Replicas: r})
	}
	return p
}

// TestPrintedStep: under the timed model a step of the batched replay is numbered as the
// step of the printed (timed) plan that reaches its replicas (issue 20).
func TestPrintedStep(t *testing.T) {
	batched := plan([]int32{4, 2}, []int32{2, 2}, []int32{2, 4})
	// The timed plan scales in smaller writes: [4 1] [4 2] [3 2] [2 2] [2 3] [2 4].
	timed := plan([]int32{4, 1}, []int32{4, 2}, []int32{3, 2}, []int32{2, 2}, []int32{2, 3}, []int32{2, 4})
	for _, tc := range []struct {
		k, want int
		isTimed bool
	}{
		{k: 1, want: 2, isTimed: true},
		{k: 2, want: 4, isTimed: true},
		{k: 3, want: 6, isTimed: true},
		{k: 2, want: 2, isTimed: false},
	} {
		if got := printedStep(batched, timed, tc.k, tc.isTimed); got != tc.want {
			t.Errorf("printedStep(k=%d, timed=%v) = %d, want %d", tc.k, tc.isTimed, got, tc.want)
		}
	}
	// Replicas the timed plan never reaches: the last step at or under them.
	if got := printedStep(plan([]int32{3, 3}), timed, 1, true); got != 5 {
		t.Errorf("printedStep of unreached [3 3] = %d, want 5 ([2 3])", got)
	}
}
