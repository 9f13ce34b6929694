package cmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/drive"
	"github.com/rollplan/kubectl-rollplan/pkg/driverun"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
)

// addDriveCheckFlags registers preview's --checks and --fail-on-stall on drive.
func addDriveCheckFlags(cmd *cobra.Command, o *DriveOptions) {
	fl := cmd.Flags()
	fl.StringVar(&o.Checks, "checks", o.Checks, "Feasibility checks run on the plan before the takeover: a comma-separated list of quota, capacity, pdb, hpa, or all, or none.")
	fl.BoolVar(&o.FailOnStall, "fail-on-stall", false, fmt.Sprintf("Exit with code %d, before any write, when the checks predict the plan stalls.", ExitStalled))
}

// checkPrepared runs the feasibility checks of --checks on the plan p takes over
// (driverun.Check) and prints the FINDINGS block and the "Stalled at step k" line on Out,
// under the plan. A held drive it continues (no takeover) is not checked. It returns
// ExitStalled with --fail-on-stall when a stall is predicted, before any write; without it
// the stall is a warning on ErrOut and drive goes on. A check that fails is a warning too.
func (o *DriveOptions) checkPrepared(ctx context.Context, cs kubernetes.Interface, p *drive.Prepared) error {
	r, ran, err := driverun.Check(ctx, cs, o.Ref, o.Checks, p)
	if err != nil {
		printer.PrintWarnings(o.ErrOut, "feasibility checks not run: "+err.Error())
		return nil
	}
	if !ran {
		return nil
	}
	if err := printer.PrintFeasibility(o.Out, r); err != nil {
		return err
	}
	if r == nil || r.Stall == nil {
		return nil
	}
	if o.FailOnStall {
		return NewExitError(ExitStalled, fmt.Sprintf("deployment %s/%s: the plan stalls at step %d (%s): nothing changed; make room (%s) or drop --fail-on-stall to drive and hold there", o.Namespace, o.Name, r.Stall.Step, r.Stall.Reason, objectsOr(r.Stall.Objects)))
	}
	printer.PrintWarnings(o.ErrOut, fmt.Sprintf("the checks predict the plan stalls at step %d (%s: %s): drive goes on and will hold there; --fail-on-stall exits %d instead", r.Stall.Step, r.Stall.Reason, objectsOr(r.Stall.Objects), ExitStalled))
	return nil
}

// objectsOr joins objs, or says "the cluster" when none is named.
func objectsOr(objs []string) string {
	if len(objs) == 0 {
		return "the cluster"
	}
	s := objs[0]
	for _, o := range objs[1:] {
		s += ", " + o
	}
	return s
}
