package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
)

// validateFleet checks the flags of a preview over many Deployments (pure).
func (o *PreviewOptions) validateFleet() error {
	if o.Summary && !o.Output.Human() {
		return errors.New("--summary prints the human table: drop -o")
	}
	if o.manifests() && (o.Fleet.many() || o.Fleet.Select.Selector != "" || o.Fleet.Select.All || o.Fleet.Select.AllNamespaces) {
		return errors.New("-f/-k give the Deployments of a manifest set: they do not go with several names, -l, --all or -A; name one Deployment of the set, or none to plan them all")
	}
	if !o.Fleet.many() {
		return nil
	}
	if o.Fleet.Selection.AllNamespaces && o.Change.Any() {
		return errors.New("-A/--all-namespaces previews the rollouts in flight: drop the change flag, or give the namespace with -n")
	}
	return nil
}

// fleetPlan is one Deployment's result in a preview over many: the pipeline's Result (its
// plan, warnings, estimate) and the plan's API object (nil when it failed).
type fleetPlan struct {
	pipeline.Result
	API *v1alpha1.RolloutPlan
}

// runFleet previews every selected Deployment: the change flags applied to each (as `kubectl
// set image -l` does), else the rest of its rollout. Human: the summary table, then each plan
// in full (--summary: the table only); -o: a RolloutPlanList. Failed Deployments are named on
// stderr, the others still printed; the exit is fleetExit's.
func (o *PreviewOptions) runFleet(ctx context.Context, now time.Time) error {
	client := o.Client
	if client == nil {
		client = o.Fleet.Client // the reads, dry runs and pod LISTs of every Deployment: one clientset
	}
	src := o.source(client)
	sel, err := o.selection()
	if err != nil {
		return err
	}
	members, err := src.Select(ctx, sel)
	if err != nil {
		return err
	}
	results := fleetPlans(o.pipelineConfig(now).PlanAll(ctx, src, members))
	if len(results) == 0 {
		fmt.Fprintln(o.ErrOut, noneFound(o.Fleet.Selection.Scope().Namespace))
	}
	failed, stalled := o.tally(results)
	if err := o.printFleet(results, false); err != nil {
		return err
	}
	return fleetExit(o.Fleet.failures(o.ErrOut, failed), stalled, o.FailOnStall)
}

// selection is the pipeline's Selection of the flags: the LIST of -l/--all/-A, or the names.
// Errors: Selection.Resolve's (names ask nothing).
func (o *PreviewOptions) selection() (pipeline.Selection, error) {
	sel := o.Fleet.Selection
	ps := pipeline.Selection{Bulk: sel.Bulk(), Scope: sel.Scope(), ExplicitNamespace: sel.EnforceNamespace}
	if ps.Bulk {
		return ps, nil
	}
	var err error
	ps.Refs, err = sel.Resolve(context.Background()) // names: no request
	return ps, err
}

// tally returns the members that failed and the number of plans that stall.
func (o *PreviewOptions) tally(results []fleetPlan) (failed []fleetMember, stalled int) {
	for _, r := range results {
		switch {
		case r.Err != nil:
			m := r.Member
			m.Err = r.Err // the read's or the plan's
			failed = append(failed, m)
		case stalls(r.Result):
			stalled++
		}
	}
	return failed, stalled
}

// fleetPlans pairs each result with its API object.
func fleetPlans(rs []pipeline.Result) []fleetPlan {
	out := make([]fleetPlan, len(rs))
	for i, r := range rs {
		out[i] = fleetPlan{Result: r}
		if r.Err == nil {
			out[i].API = apiPlan(r)
		}
	}
	return out
}

// noneFound is kubectl's line for an empty selection.
func noneFound(namespace string) string {
	if namespace == "" {
		return "No resources found"
	}
	return fmt.Sprintf("No resources found in %s namespace.", namespace)
}

// printFleet prints the results: the summary (with a CONTEXT column first when withContext)
// and each plan (human), or a RolloutPlanList.
func (o *PreviewOptions) printFleet(results []fleetPlan, withContext bool) error {
	if !o.Output.Human() {
		p, err := o.Output.ToPrinter()
		if err != nil {
			return err
		}
		var plans []*v1alpha1.RolloutPlan
		for _, r := range results {
			if r.API != nil {
				plans = append(plans, r.API)
			}
		}
		return p.PrintObj(printer.NewRolloutPlanList(plans), o.Out)
	}
	if len(results) == 0 {
		return nil
	}
	s := printer.Summary{WithContext: withContext}
	for _, r := range results {
		s.Rows = append(s.Rows, printer.SummaryRow{Context: r.Source, Namespace: r.Namespace, Name: r.Name, Change: o.changeWords(r.API), Plan: r.API, Err: r.Err})
		if r.Feasibility != nil && s.ExtraColumns == nil {
			s.ExtraColumns = []string{printer.FeasibilityColumn}
		}
	}
	if s.ExtraColumns != nil {
		for i, r := range results {
			if r.API != nil {
				s.Rows[i].Extra = []string{printer.FeasibilityCell(r.API.Feasibility)}
			}
		}
	}
	if err := printer.PrintSummary(o.Out, s); err != nil || o.Summary {
		return err
	}
	for _, r := range results {
		if r.Plan == nil {
			continue
		}
		fmt.Fprintln(o.Out)
		opts := o.planOptions(r.Warnings)
		opts.Estimate = r.Estimate
		if withContext {
			opts.Context = r.Source
		}
		if err := printer.PrintPlan(o.Out, r.Plan, opts); err != nil {
			return err
		}
		if err := printer.PrintFeasibility(o.Out, r.Feasibility); err != nil {
			return err
		}
	}
	return nil
}

// changeWords is the CHANGE cell: the change flags in a few words, or, without one, whether
// a rollout is in flight.
func (o *PreviewOptions) changeWords(p *v1alpha1.RolloutPlan) string {
	c := &o.Change
	var w []string
	if c.Filename != "" {
		w = append(w, "manifest "+c.Filename)
	}
	if len(c.Images) > 0 {
		w = append(w, "image "+strings.Join(c.Images, " "))
	}
	if c.replicasSet {
		w = append(w, fmt.Sprintf("replicas %d", c.Replicas))
	}
	if c.toRevisionSet {
		w = append(w, fmt.Sprintf("undo to revision %d", c.ToRevision))
	}
	if c.Restart {
		w = append(w, "restart")
	}
	switch {
	case len(w) > 0:
		return strings.Join(w, ", ")
	case p == nil:
		return ""
	case p.Outcome == string(planner.OutcomeNoChange):
		return "none"
	}
	return "rollout in flight"
}
