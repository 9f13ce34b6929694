package drive

import (
	"testing"

	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// TestDriveSteps: the controller's steps (old 3 -> 3 with new 0 -> 1, old 3 -> 2, new 1 -> 2,
// old 2 -> 1, new 2 -> 3, old 1 -> 0) numbered by a drive plan of three steps (new to 1, 2,
// 3), from 1 and, for a held drive with one step done, from 2.
func TestDriveSteps(t *testing.T) {
	p := &planner.Plan{
		ReplicaSets: []planner.ReplicaSetInfo{{Name: "web-old"}, {Name: "web-new", New: true}},
		Steps: []planner.Step{
			{Replicas: []int32{3, 1}}, {Replicas: []int32{2, 1}}, {Replicas: []int32{2, 2}},
			{Replicas: []int32{1, 2}}, {Replicas: []int32{1, 3}}, {Replicas: []int32{0, 3}},
		},
	}
	walk := func(first int) []Step {
		var out []Step
		for i, to := range []int32{1, 2, 3} {
			if i+1 >= first {
				out = append(out, Step{Number: i + 1, New: Scale{Name: "web-new", Old: -1, From: max(0, to-1), To: to}})
			}
		}
		return out
	}
	cases := []struct {
		name  string
		steps []Step
		// controller step -> drive step
		want map[int]int
	}{
		{"from step 1", walk(1), map[int]int{0: 0, 1: 1, 2: 1, 3: 2, 4: 2, 5: 3, 6: 3, 7: 7}},
		{"held after step 1", walk(2), map[int]int{0: 0, 1: 2, 2: 2, 3: 2, 4: 2, 5: 3, 6: 3}},
		{"no drive step", nil, map[int]int{1: 1, 5: 5}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for k, want := range tc.want {
				r := &feasibility.Result{Plan: p, Stall: &feasibility.Stall{Step: k, Reason: "Quota"},
					Findings: []feasibility.Finding{{Check: "quota", Step: k}}}
				got, err := DriveSteps(r, planner.Input{}, tc.steps)
				if err != nil {
					t.Fatal(err)
				}
				if got.Stall.Step != want || got.Findings[0].Step != want {
					t.Errorf("controller step %d: stall at %d, finding at %d, want drive step %d", k, got.Stall.Step, got.Findings[0].Step, want)
				}
				if r.Stall.Step != k || r.Findings[0].Step != k {
					t.Errorf("controller step %d: the input was modified", k)
				}
			}
		})
	}
	if got, err := DriveSteps(nil, planner.Input{}, walk(1)); got != nil || err != nil {
		t.Errorf("nil result: %v, %v", got, err)
	}
}
