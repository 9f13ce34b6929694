package cmd

import (
	"fmt"

	"github.com/rollplan/kubectl-rollplan/pkg/manifest"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
)

// printSet prints the plans of a manifest set, then each failure on stderr. Exit code: 1 when
// a file or a Deployment failed, else 3 with --fail-on-stall when a plan stalls.
func (o *PreviewOptions) printSet(set *manifest.Set, results []manifest.Result) error {
	var errs []error
	stalled := false
	for _, r := range results {
		if r.Err != nil {
			errs = append(errs, r.Err)
			continue
		}
		stalled = stalled || r.Plan.Outcome == planner.OutcomeStalled
		if o.Output.Human() {
			fmt.Fprintf(o.Out, "# %s (%s): %s\n", r.Ref, r.Source, r.Change)
			if err := printer.PrintPlan(o.Out, r.Plan, printer.PlanOptions{MaxSteps: o.MaxSteps, ChartWidth: 30, Warnings: r.Warnings}); err != nil {
				return err
			}
			fmt.Fprintln(o.Out)
		}
	}
	if err := o.reportErrors(append(append([]error{}, set.Errors...), errs...)); err != nil {
		return err
	}
	if o.FailOnStall && stalled {
		return NewExitError(ExitStalled, "")
	}
	return nil
}
