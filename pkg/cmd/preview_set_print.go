package cmd

import (
	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
)

// setRun is a manifest set planned in one context (printer.SetRun).
type setRun = printer.SetRun

// printSet prints the plans of a manifest set: human, the summary table (with a SOURCE
// column), the count of the other kinds, then each plan in full; -o, a RolloutPlanList whose
// plans carry manifest.source and manifest.change. Then each failure on stderr. Exit code: 1
// when a file or a Deployment failed, else 3 with --fail-on-stall when a plan stalls.
func (o *PreviewOptions) printSet(set *pipeline.ManifestSet, results []pipeline.SetResult, sc *setConfig) error {
	return o.printSets(set, []setRun{{Results: results}}, sc)
}

// printSets is printSet of the set planned in each context of runs: across contexts
// (--contexts) the summary has a CONTEXT column first, each plan a Context line and each
// item of -o its context; a context that failed is one line on stderr and exit code 1.
func (o *PreviewOptions) printSets(set *pipeline.ManifestSet, runs []setRun, sc *setConfig) error {
	summary, plans, stalled := printer.SetSummary(runs, o.Contexts.many())
	stalled = stalled || sc.Stalls()
	if err := o.printSetPlans(set, runs, summary, plans, sc); err != nil {
		return err
	}
	return o.setExit(set.Errors, runs, stalled)
}

// setExit writes each failure (printer.PrintSetFailures), then, as fleetExit does, exits 1
// with a last line naming the failed Deployments and counting the unreadable files (nothing
// more for failed contexts alone); else 3 with --fail-on-stall when a plan stalled.
func (o *PreviewOptions) setExit(fileErrs []error, runs []setRun, stalled bool) error {
	failed, failedContexts := printer.PrintSetFailures(o.ErrOut, fileErrs, runs)
	switch {
	case len(fileErrs) == 0 && len(failed) == 0 && failedContexts > 0:
		return NewExitError(ExitError, "")
	case len(fileErrs) == 0:
		return fleetExit(failed, boolCount(stalled), o.FailOnStall)
	}
	return NewExitError(ExitError, printer.SetFailureMessage(len(fileErrs), failed))
}

func boolCount(b bool) int {
	if b {
		return 1
	}
	return 0
}

// printSetPlans prints the set's plans, its config restarts (sc) and its StatefulSets' and
// DaemonSets' (printer.PreviewView.PrintSetPlans).
func (o *PreviewOptions) printSetPlans(set *pipeline.ManifestSet, runs []setRun, summary printer.Summary, plans []*v1alpha1.RolloutPlan, sc *setConfig) error {
	kinds := printer.SetKinds{Plans: o.kindPlans(), Rows: len(o.kindRows), PrintKinds: o.printSetKinds}
	return o.view().PrintSetPlans(o.Out, o.ErrOut, set, runs, summary, plans, sc, o.Contexts.many(), kinds)
}
