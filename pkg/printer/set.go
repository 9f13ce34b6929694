package printer

import (
	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/manifest"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// SetRun is a manifest set planned in one context: its results, or the error that kept the
// context from any. Context is "" for the one context of a preview without --contexts.
type SetRun struct {
	Context string
	Results []manifest.Result
	Err     error
}

// SetSummary builds the summary of a manifest set planned in each context of runs (a SOURCE
// column; a CONTEXT column first when withContext), the RolloutPlans of its planned
// Deployments (each with manifest.source and manifest.change, its context and feasibility),
// and whether a plan stalls (its outcome, or its feasibility's stall). The FEASIBILITY
// column is added (AddFeasibilityColumn). Pure.
func SetSummary(runs []SetRun, withContext bool) (Summary, []*v1alpha1.RolloutPlan, bool) {
	var plans []*v1alpha1.RolloutPlan
	summary := Summary{ExtraColumns: []string{"SOURCE"}, WithContext: withContext}
	stalled := false
	for _, run := range runs {
		for _, r := range run.Results {
			row := SummaryRow{Context: run.Context, Namespace: r.Ref.Namespace, Name: r.Ref.Name, Change: ManifestChangeWords(r.Change), Err: r.Err, Extra: []string{r.Source}}
			if r.Err == nil {
				stalled = stalled || r.Plan.Outcome == planner.OutcomeStalled || (r.Feasibility != nil && r.Feasibility.Stall != nil)
				row.Plan = NewRolloutPlan(r.Plan, r.Warnings)
				row.Plan.Manifest = &v1alpha1.PlanManifest{Source: r.Source, Change: string(r.Change)}
				row.Plan.Context = run.Context
				row.Plan.Feasibility = NewPlanFeasibility(r.Feasibility)
				plans = append(plans, row.Plan)
			}
			summary.Rows = append(summary.Rows, row)
		}
	}
	var feasibility []*v1alpha1.PlanFeasibility
	for _, r := range summary.Rows {
		if r.Plan != nil {
			feasibility = append(feasibility, r.Plan.Feasibility)
		} else {
			feasibility = append(feasibility, nil)
		}
	}
	AddFeasibilityColumn(&summary, feasibility)
	return summary, plans, stalled
}

// SpansNamespaces reports whether the set's Deployments are in more than one namespace.
func SpansNamespaces(results []manifest.Result) bool {
	for _, r := range results {
		if r.Ref.Namespace != results[0].Ref.Namespace {
			return true
		}
	}
	return false
}
