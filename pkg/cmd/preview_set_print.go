package cmd

import (
	"fmt"
	"strings"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/manifest"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
)

// setRun is a manifest set planned in one context (printer.SetRun).
type setRun = printer.SetRun

// printSet prints the plans of a manifest set: human, the summary table (with a SOURCE
// column), the count of the other kinds, then each plan in full; -o, a RolloutPlanList whose
// plans carry manifest.source and manifest.change. Then each failure on stderr. Exit code: 1
// when a file or a Deployment failed, else 3 with --fail-on-stall when a plan stalls.
func (o *PreviewOptions) printSet(set *manifest.Set, results []manifest.Result, sc *setConfig) error {
	return o.printSets(set, []setRun{{Results: results}}, sc)
}

// printSets is printSet of the set planned in each context of runs: across contexts
// (--contexts) the summary has a CONTEXT column first, each plan a Context line and each
// item of -o its context; a context that failed is one line on stderr and exit code 1.
func (o *PreviewOptions) printSets(set *manifest.Set, runs []setRun, sc *setConfig) error {
	summary, plans, stalled := printer.SetSummary(runs, o.Contexts.many())
	stalled = stalled || (sc != nil && restartsStall(sc.preview.Targets))
	if err := o.printSetPlans(set, runs, summary, plans, sc); err != nil {
		return err
	}
	return o.setExit(set.Errors, runs, stalled)
}

// setExit writes each unreadable file, each context that failed (printer.PrintContextFailure)
// and each failed Deployment as an "error: ..." line (printer.PrintFailure: the Deployment's
// names it and its file, its context across contexts, and its namespace when the set spans
// several), then, as fleetExit does, exits 1 with a last line naming the failed Deployments
// and counting the unreadable files (nothing more for failed contexts alone); else 3 with
// --fail-on-stall when a plan stalled.
func (o *PreviewOptions) setExit(fileErrs []error, runs []setRun, stalled bool) error {
	var failed []string
	for _, err := range fileErrs {
		fmt.Fprintln(o.ErrOut, "error: "+err.Error())
	}
	failedContexts := 0
	for _, run := range runs {
		if run.Err != nil {
			printer.PrintContextFailure(o.ErrOut, run.Context, run.Err)
			failedContexts++
		}
		withNS := printer.SpansNamespaces(run.Results)
		for _, r := range run.Results {
			if r.Err == nil {
				continue
			}
			f := printer.Failure{Namespace: r.Ref.Namespace, Name: r.Ref.Name, WithNamespace: withNS, Source: r.Source, Err: r.Err}
			name := printer.DeploymentName(r.Ref.Namespace, r.Ref.Name, withNS)
			if run.Context != "" {
				f.Source = "context " + run.Context + ", " + r.Source
				name += " (context " + run.Context + ")"
			}
			printer.PrintFailure(o.ErrOut, f)
			failed = append(failed, name)
		}
	}
	switch {
	case len(fileErrs) == 0 && len(failed) == 0 && failedContexts > 0:
		return NewExitError(ExitError, "")
	case len(fileErrs) == 0:
		return fleetExit(failed, boolCount(stalled), o.FailOnStall)
	}
	msg := fmt.Sprintf("%d file(s) could not be read", len(fileErrs))
	if len(failed) > 0 {
		msg = fmt.Sprintf("%d Deployment(s) failed: %s; %s", len(failed), strings.Join(failed, ", "), msg)
	}
	return NewExitError(ExitError, msg)
}

func boolCount(b bool) int {
	if b {
		return 1
	}
	return 0
}

// printSetPlans prints the set's RolloutPlanList (-o; the config restarts of sc appended,
// its notes on stderr), or the summary, the other kinds, (without --summary) each plan in
// full, then sc's section.
func (o *PreviewOptions) printSetPlans(set *manifest.Set, runs []setRun, summary printer.Summary, plans []*v1alpha1.RolloutPlan, sc *setConfig) error {
	if !o.Output.Human() {
		p, err := o.Output.ToPrinter()
		if err != nil {
			return err
		}
		if sc != nil {
			for _, n := range sc.notes {
				fmt.Fprintln(o.ErrOut, n)
			}
		}
		return p.PrintObj(printer.NewRolloutPlanList(append(append(plans, sc.plans()...), o.kindPlans()...)), o.Out)
	}
	if len(summary.Rows) == 0 && len(o.kindRows) > 0 {
		printer.PrintOtherKinds(o.Out, set.OtherKinds())
		return o.printSetKinds()
	}
	if len(summary.Rows) == 0 && o.Contexts.many() {
		return nil // every context failed: their lines say why
	}
	if err := printer.PrintSummary(o.Out, summary); err != nil {
		return err
	}
	printer.PrintOtherKinds(o.Out, set.OtherKinds())
	for _, run := range runs {
		for _, r := range run.Results {
			if r.Err != nil || o.Summary {
				continue
			}
			fmt.Fprintln(o.Out)
			opts := o.view().PlanOptions(r.Warnings)
			opts.Context = run.Context
			if err := printer.PrintPlan(o.Out, r.Plan, opts); err != nil {
				return err
			}
			if err := printer.PrintFeasibility(o.Out, r.Feasibility); err != nil {
				return err
			}
		}
	}
	if err := sc.print(o); err != nil {
		return err
	}
	return o.printSetKinds()
}
