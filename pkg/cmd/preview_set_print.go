package cmd

import (
	"fmt"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/manifest"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
)

// printSet prints the plans of a manifest set, then each failure on stderr. Exit code: 1 when
// a file or a Deployment failed, else 3 with --fail-on-stall when a plan stalls.
func (o *PreviewOptions) printSet(set *manifest.Set, results []manifest.Result) error {
	var errs []error
	var plans []*v1alpha1.RolloutPlan
	stalled := false
	for _, r := range results {
		if r.Err != nil {
			errs = append(errs, r.Err)
			continue
		}
		stalled = stalled || r.Plan.Outcome == planner.OutcomeStalled
		p := printer.NewRolloutPlan(r.Plan, r.Warnings)
		p.Manifest = &v1alpha1.PlanManifest{Source: r.Source, Change: string(r.Change)}
		plans = append(plans, p)
		if o.Output.Human() {
			fmt.Fprintf(o.Out, "# %s (%s): %s\n", r.Ref, r.Source, r.Change)
			if err := printer.PrintPlan(o.Out, r.Plan, printer.PlanOptions{MaxSteps: o.MaxSteps, ChartWidth: 30, Warnings: r.Warnings}); err != nil {
				return err
			}
			fmt.Fprintln(o.Out)
		}
	}
	if !o.Output.Human() {
		p, err := o.Output.ToPrinter()
		if err != nil {
			return err
		}
		list := &v1alpha1.RolloutPlanList{Items: []v1alpha1.RolloutPlan{}}
		list.APIVersion, list.Kind = v1alpha1.SchemeGroupVersion.String(), "RolloutPlanList"
		for _, pl := range plans {
			list.Items = append(list.Items, *pl)
		}
		if err := p.PrintObj(list, o.Out); err != nil {
			return err
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
