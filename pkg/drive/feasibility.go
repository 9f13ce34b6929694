package drive

import (
	"slices"

	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// PlannerInput is the planner's input of the rollout tk takes over: the desired Deployment
// (its own strategy, not the takeover's Recreate) with the live status, and the ReplicaSets
// read, under the batched readiness model. The feasibility checks (pipeline.Config.Feasible)
// replay the controller's plan of this input against the cluster's quotas, nodes, PDBs and
// HPAs; DriveSteps numbers what they find by the drive's steps.
func PlannerInput(tk *Takeover) planner.Input {
	d := tk.Desired.DeepCopy()
	d.Status = tk.Live.Status
	return planner.Input{Deployment: d, ReplicaSets: tk.ReplicaSets, Readiness: planner.ReadinessBatched}
}

// DriveSteps returns r (the feasibility checks' result on in, the controller's plan) with its
// findings' and stall's step numbers made steps of the drive plan steps: the controller's
// step k becomes the first drive step whose new ReplicaSet reaches the new ReplicaSet's
// replicas after step k, or the last drive step when none does; step 0 (the plan as a whole,
// or before the first write) stays 0. r is not modified; nil for nil.
//
// Example: 4 replicas, maxSurge 1, maxUnavailable 0, a pods quota of 4: the controller's
// step 1 creates the new ReplicaSet with 1 pod (refused); the drive's step 1 creates it with
// 1 too: "Stalled at step 1".
//
// Errors: planner.Simulate's on in (when r carries no replayed plan).
func DriveSteps(r *feasibility.Result, in planner.Input, steps []Step) (*feasibility.Result, error) {
	if r == nil {
		return nil, nil
	}
	p := r.Plan
	if p == nil {
		var err error
		if p, err = planner.Simulate(in); err != nil {
			return nil, err
		}
	}
	out := *r
	out.Findings = slices.Clone(r.Findings)
	for i := range out.Findings {
		out.Findings[i].Step = driveStep(p, out.Findings[i].Step, steps)
	}
	if r.Stall != nil {
		s := *r.Stall
		s.Step = driveStep(p, s.Step, steps)
		out.Stall = &s
	}
	return &out, nil
}

// driveStep is the controller's step k (from 1) of p as a drive step's Number (see DriveSteps).
func driveStep(p *planner.Plan, k int, steps []Step) int {
	if k < 1 || k > len(p.Steps) || len(steps) == 0 {
		return k
	}
	n := slices.IndexFunc(p.ReplicaSets, func(rs planner.ReplicaSetInfo) bool { return rs.New })
	if n < 0 || n >= len(p.Steps[k-1].Replicas) {
		return steps[len(steps)-1].Number
	}
	want := p.Steps[k-1].Replicas[n]
	for _, s := range steps {
		if s.New.To >= want {
			return s.Number
		}
	}
	return steps[len(steps)-1].Number
}
