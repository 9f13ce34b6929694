package printer

import (
	"fmt"
	"io"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// PreviewView is how "kubectl rollplan preview" prints Deployments' plans: -o, --max-steps,
// --summary and the change flags in words (the CHANGE cell).
type PreviewView struct {
	Output   *OutputFlags
	MaxSteps int
	Summary  bool
	// Change is the change flags in a few words ("image web=nginx:1.19, replicas 3"), ""
	// without one (ChangeCell).
	Change string
}

// PlanOptions are the human plan's options with warnings (a 30-column chart).
func (v PreviewView) PlanOptions(warnings []string) PlanOptions {
	return PlanOptions{MaxSteps: v.MaxSteps, ChartWidth: 30, Warnings: warnings}
}

// APIPlan is r's RolloutPlan: its timing section under the timed model, its context, its
// feasibility.
func APIPlan(r pipeline.Result) *v1alpha1.RolloutPlan {
	obj := NewRolloutPlan(r.Plan, r.Warnings)
	if r.Estimate != nil {
		obj.Timing = NewPlanTiming(r.Estimate, r.Plan.MinReadySeconds)
	}
	if r.Source != "" {
		obj.Context = r.Source
	}
	obj.Feasibility = NewPlanFeasibility(r.Feasibility)
	return obj
}

// PreviewPlan is one Deployment's result in a preview over many: the pipeline's Result (its
// plan, warnings, estimate) and the plan's API object (nil when it failed).
type PreviewPlan struct {
	pipeline.Result
	API *v1alpha1.RolloutPlan
}

// PreviewPlans pairs each result with its API object (APIPlan).
func PreviewPlans(rs []pipeline.Result) []PreviewPlan {
	out := make([]PreviewPlan, len(rs))
	for i, r := range rs {
		out[i] = PreviewPlan{Result: r}
		if r.Err == nil {
			out[i].API = APIPlan(r)
		}
	}
	return out
}

// Tally returns the members of results that failed (each with its Err: the read's or the
// plan's) and the number of plans that stall (pipeline.Result.Stalls).
func Tally(results []PreviewPlan) (failed []pipeline.Member, stalled int) {
	for _, r := range results {
		switch {
		case r.Err != nil:
			m := r.Member
			m.Err = r.Err
			failed = append(failed, m)
		case r.Result.Stalls():
			stalled++
		}
	}
	return failed, stalled
}

// ChangeCell is the CHANGE cell: words (the change flags), or, without a change, whether a
// rollout is in flight ("none" when p's outcome is NoChange; "" without a plan).
func ChangeCell(words string, p *v1alpha1.RolloutPlan) string {
	switch {
	case words != "":
		return words
	case p == nil:
		return ""
	case p.Outcome == string(planner.OutcomeNoChange):
		return "none"
	}
	return "rollout in flight"
}

// NoneFound is kubectl's line for an empty selection in namespace ("" for all).
func NoneFound(namespace string) string {
	if namespace == "" {
		return "No resources found"
	}
	return fmt.Sprintf("No resources found in %s namespace.", namespace)
}

// PrintOne prints the preview of one Deployment: with --summary its one-row table; else its
// plan and feasibility; -o its RolloutPlan. Errors: the writer's or the -o printer's.
func (v PreviewView) PrintOne(w io.Writer, r pipeline.Result) error {
	switch {
	case v.Output.Human() && v.Summary:
		api := NewRolloutPlan(r.Plan, r.Warnings)
		row := SummaryRow{Namespace: r.Plan.Namespace, Name: r.Plan.Name, Change: ChangeCell(v.Change, api), Plan: api}
		return PrintSummary(w, Summary{Rows: []SummaryRow{row}})
	case v.Output.Human():
		opts := v.PlanOptions(r.Warnings)
		opts.Estimate = r.Estimate
		if err := PrintPlan(w, r.Plan, opts); err != nil {
			return err
		}
		return PrintFeasibility(w, r.Feasibility)
	}
	p, err := v.Output.ToPrinter()
	if err != nil {
		return err
	}
	return p.PrintObj(APIPlan(r), w)
}

// PrintFleet prints the results of a preview over many Deployments: the summary (with a
// CONTEXT column first when withContext, a FEASIBILITY column when a check ran) and, without
// --summary, each plan (headed by its context when withContext); -o a RolloutPlanList of the
// planned ones.
func (v PreviewView) PrintFleet(w io.Writer, results []PreviewPlan, withContext bool) error {
	if !v.Output.Human() {
		p, err := v.Output.ToPrinter()
		if err != nil {
			return err
		}
		var plans []*v1alpha1.RolloutPlan
		for _, r := range results {
			if r.API != nil {
				plans = append(plans, r.API)
			}
		}
		return p.PrintObj(NewRolloutPlanList(plans), w)
	}
	if len(results) == 0 {
		return nil
	}
	s := Summary{WithContext: withContext}
	for _, r := range results {
		s.Rows = append(s.Rows, SummaryRow{Context: r.Source, Namespace: r.Namespace, Name: r.Name, Change: ChangeCell(v.Change, r.API), Plan: r.API, Err: r.Err})
		if r.Feasibility != nil && s.ExtraColumns == nil {
			s.ExtraColumns = []string{FeasibilityColumn}
		}
	}
	if s.ExtraColumns != nil {
		for i, r := range results {
			if r.API != nil {
				s.Rows[i].Extra = []string{FeasibilityCell(r.API.Feasibility)}
			}
		}
	}
	if err := PrintSummary(w, s); err != nil || v.Summary {
		return err
	}
	for _, r := range results {
		if r.Plan == nil {
			continue
		}
		fmt.Fprintln(w)
		opts := v.PlanOptions(r.Warnings)
		opts.Estimate = r.Estimate
		if withContext {
			opts.Context = r.Source
		}
		if err := PrintPlan(w, r.Plan, opts); err != nil {
			return err
		}
		if err := PrintFeasibility(w, r.Feasibility); err != nil {
			return err
		}
	}
	return nil
}

// PrintFleetContextFailures writes, after a preview across contexts, "error: context NAME:
// REASON" for each context of names whose errs entry is set, then one line for each
// Deployment of results that failed (naming its context; its namespace when withNamespace).
// It returns those Deployments' names (with "(context NAME)") and the failed contexts' count.
func PrintFleetContextFailures(w io.Writer, names []string, errs []error, results []PreviewPlan, withNamespace bool) (failed []string, failedContexts int) {
	for i, err := range errs {
		if err != nil {
			PrintContextFailure(w, names[i], err)
			failedContexts++
		}
	}
	for _, r := range results {
		if r.Err != nil {
			PrintFailure(w, Failure{Namespace: r.Namespace, Name: r.Name, WithNamespace: withNamespace, Source: "context " + r.Source, Err: r.Err})
			failed = append(failed, DeploymentName(r.Namespace, r.Name, withNamespace)+" (context "+r.Source+")")
		}
	}
	return failed, failedContexts
}
