package printer

import (
	"fmt"
	"io"

	"k8s.io/cli-runtime/pkg/printers"

	"github.com/rollplan/kubectl-rollplan/pkg/driverun"
)

// PrintStsStall warns on w that the checks predict drive sts/NAME's plan stalls, when it
// goes on anyway (no --fail-on-stall); nothing otherwise.
func PrintStsStall(w io.Writer, s *driverun.StsStall) {
	if s == nil || s.Stall == nil || s.FailOnStall {
		return
	}
	PrintWarnings(w, fmt.Sprintf("the checks predict the plan stalls at sync %d (%s: %s): drive goes on and will hold there; --fail-on-stall exits %d instead",
		s.Stall.Step, s.Stall.Reason, s.Stall.Message, driverun.ExitStalled))
}

// PrintStsDrive renders drive sts/NAME's result (driverun.DriveSts) on out: the walk of a
// dry run, or the StatefulSetDrive object with its result, through p (-o) when p is not
// nil, else the human walk; and for a walk held at a partition the closing block on errOut
// (PrintStsHeld). A nil r prints nothing.
func PrintStsDrive(out, errOut io.Writer, p printers.ResourcePrinter, r *driverun.StsResult) error {
	switch {
	case r == nil:
		return nil
	case r.DryRun && p == nil:
		return PrintStsDrivePlan(out, r.Plan)
	case r.DryRun:
		return p.PrintObj(r.Plan, out)
	}
	if r.Plan != nil && p != nil {
		if err := p.PrintObj(r.Plan, out); err != nil {
			return err
		}
	}
	if r.Held != nil {
		return PrintStsHeld(errOut, r.Held)
	}
	return nil
}
