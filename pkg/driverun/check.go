package driverun

import (
	"context"

	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/drive"
	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// Check runs the feasibility checks of checks (a valid --checks value) on the plan p takes
// over: the pipeline's Feasible on drive.PlannerInput, the objects read through cs, numbered
// by the drive's steps (drive.DriveSteps). ran is false when nothing was checked
// (--checks=none, or a held drive continued: no takeover). r is nil or its Stall is nil
// when no stall is predicted. Errors: a check that could not run (callers warn and go on).
func Check(ctx context.Context, cs kubernetes.Interface, ref target.Ref, checks string, p *drive.Prepared) (r *feasibility.Result, ran bool, err error) {
	names, _ := feasibility.ParseChecks(checks) // Validate refused a bad value
	if len(names) == 0 || p.Takeover == nil {
		return nil, false, nil
	}
	tk := p.Takeover
	in := drive.PlannerInput(tk)
	m := pipeline.Member{Ref: ref, State: &cluster.State{Deployment: tk.Live, ReplicaSets: tk.ReplicaSets, Source: "cluster"}}
	src := pipeline.NewLive("", "", func() (kubernetes.Interface, error) { return cs, nil })
	r, err = (&pipeline.Config{Feasibility: names}).Feasible(ctx, src, m, in)
	if err == nil {
		r, err = drive.DriveSteps(r, in, p.Steps)
	}
	return r, true, err
}
