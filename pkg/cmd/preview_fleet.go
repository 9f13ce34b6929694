package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/estimate"
	"github.com/rollplan/kubectl-rollplan/pkg/manifest"
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

// fleetPlan is one Deployment's result in a preview over many: its plan (with warnings), the
// estimate a timed plan was made with (nil otherwise) and the plan's API object.
type fleetPlan struct {
	fleetMember
	plan     *planner.Plan
	warnings []string
	est      *estimate.Estimate
	Plan     *v1alpha1.RolloutPlan
}

// runFleet previews every selected Deployment: the change flags applied to each (as `kubectl
// set image -l` does), else the rest of its rollout. Human: the summary table, then each plan
// in full (--summary: the table only); -o: a RolloutPlanList. Failed Deployments are named on
// stderr, the others still printed; the exit is fleetExit's.
func (o *PreviewOptions) runFleet(ctx context.Context, now time.Time) error {
	members, err := o.Fleet.load(ctx, o.StateFile)
	if err != nil {
		return err
	}
	results := o.planFleet(ctx, members, now)
	if len(results) == 0 {
		fmt.Fprintln(o.ErrOut, noneFound(o.Fleet.Selection.Scope().Namespace))
	}
	var failed []fleetMember
	var stalled int
	for _, r := range results {
		switch {
		case r.Err != nil:
			failed = append(failed, r.fleetMember)
		case r.Plan.Outcome == string(planner.OutcomeStalled):
			stalled++
		}
	}
	if err := o.printFleet(results); err != nil {
		return err
	}
	return fleetExit(o.Fleet.failures(o.ErrOut, failed), stalled, o.FailOnStall)
}

// planFleet plans each member (planOne), manifest.DefaultParallel at a time
// (manifest.Each, the bound of a manifest set's dry runs): with a change flag each sends a
// server-side dry run, under timed readiness a LIST of pods. One result per member, in the
// members' order; a member that fails carries its error and the others are planned. The
// clientset is built once for all (the client-side rate limit is then shared).
func (o *PreviewOptions) planFleet(ctx context.Context, members []fleetMember, now time.Time) []fleetPlan {
	if o.Client == nil && o.Fleet.Client != nil {
		o.Client = sync.OnceValues(o.Fleet.Client) // the dry runs and pod LISTs of each Deployment
	}
	results := make([]fleetPlan, len(members))
	manifest.Each(ctx, len(members), 0, func(ctx context.Context, i int) {
		r := fleetPlan{fleetMember: members[i]}
		if r.Err == nil {
			r.plan, r.est, r.warnings, r.Err = o.planOne(ctx, r.fleetMember, now)
		}
		if r.Err == nil {
			r.Plan = printer.NewRolloutPlan(r.plan, r.warnings)
			if r.est != nil {
				r.Plan.Timing = printer.NewPlanTiming(r.est, r.plan.MinReadySeconds)
			}
		}
		results[i] = r
	})
	return results
}

// noneFound is kubectl's line for an empty selection.
func noneFound(namespace string) string {
	if namespace == "" {
		return "No resources found"
	}
	return fmt.Sprintf("No resources found in %s namespace.", namespace)
}

// planOne applies the change flags to m's Deployment and returns its plan, the estimate of a
// timed plan (nil otherwise) and its warnings, as the preview of one Deployment makes them.
func (o *PreviewOptions) planOne(ctx context.Context, m fleetMember, now time.Time) (*planner.Plan, *estimate.Estimate, []string, error) {
	desired, warnings, err := o.desired(ctx, m.State, m.Namespace, now)
	if err != nil {
		return nil, nil, nil, err
	}
	est, timing, err := o.Timing.timing(ctx, o.Readiness, o.Client, m.State, o.StateFile == "", now)
	if err != nil {
		return nil, nil, nil, err
	}
	plan, err := planner.Simulate(planner.Input{Deployment: desired, ReplicaSets: m.State.ReplicaSets, Readiness: planner.Readiness(o.Readiness), Timing: timing})
	if err != nil {
		return nil, nil, nil, err
	}
	return plan, est, append(warnings, orphanWarnings(m.State)...), nil
}

// printFleet prints the results: the summary and each plan (human), or a RolloutPlanList.
func (o *PreviewOptions) printFleet(results []fleetPlan) error {
	if !o.Output.Human() {
		p, err := o.Output.ToPrinter()
		if err != nil {
			return err
		}
		var plans []*v1alpha1.RolloutPlan
		for _, r := range results {
			if r.Plan != nil {
				plans = append(plans, r.Plan)
			}
		}
		return p.PrintObj(printer.NewRolloutPlanList(plans), o.Out)
	}
	if len(results) == 0 {
		return nil
	}
	s := printer.Summary{}
	for _, r := range results {
		s.Rows = append(s.Rows, printer.SummaryRow{Namespace: r.Namespace, Name: r.Name, Change: o.changeWords(r.Plan), Plan: r.Plan, Err: r.Err})
	}
	if err := printer.PrintSummary(o.Out, s); err != nil || o.Summary {
		return err
	}
	for _, r := range results {
		if r.plan == nil {
			continue
		}
		fmt.Fprintln(o.Out)
		opts := o.planOptions(r.warnings)
		opts.Estimate = r.est
		if err := printer.PrintPlan(o.Out, r.plan, opts); err != nil {
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
