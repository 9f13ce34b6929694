package cmd

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
	"github.com/rollplan/kubectl-rollplan/pkg/manifest"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
)

// kindManifests returns the apps/v1 StatefulSets and DaemonSets of set (pipeline.IsKindManifest).
func kindManifests(set *manifest.Set) []manifest.Object {
	var out []manifest.Object
	for _, obj := range set.Others {
		if pipeline.IsKindManifest(obj.Object) {
			out = append(out, obj)
		}
	}
	return out
}

// runSetKinds previews a manifest set holding StatefulSets or DaemonSets: its Deployments as
// runSet plans a set (none: no Deployment table), then each StatefulSet and DaemonSet
// (pipeline.PlanKindManifest, read from the state file or the cluster), their summary table
// and plans after the Deployments' (-o: their RolloutPlans in the same RolloutPlanList, each
// with its workload). An object that could not be planned is an "error: ..." line and exit 1.
func (o *PreviewOptions) runSetKinds(ctx context.Context, set *manifest.Set, kinds []manifest.Object) error {
	set.Others = slices.DeleteFunc(slices.Clone(set.Others), func(obj manifest.Object) bool { return pipeline.IsKindManifest(obj.Object) })
	var src pipeline.KindSource = pipeline.NewLive("", "", o.Client)
	if o.StateFile != "" {
		src = pipeline.NewKindFile(o.StateFile)
	}
	now := metav1.NewTime(o.Now().UTC().Truncate(time.Second))
	checks, _ := feasibility.ParseChecks(o.Checks)                                      // Validate refused a bad value
	timing, _ := pipeline.ParseKindTiming(o.Timing.PodReadyAfter, o.Timing.SyncLatency) // Validate refused a bad value
	cfg := &pipeline.Config{Feasibility: checks}
	for _, obj := range kinds {
		p, err := pipeline.PlanKindManifest(ctx, src, obj.Object, planner.Readiness(o.Readiness), now, timing)
		ref := pipeline.WorkloadRef{Kind: obj.Kind(), Namespace: obj.Object.GetNamespace(), Name: obj.Object.GetName()}
		row := printer.KindSummaryRow{Workload: ref, Err: err}
		if err == nil {
			cfg.CheckKind(ctx, src, p.Plan)
			row.Plan = p.Plan
		}
		o.kindRows = append(o.kindRows, row)
		o.kindSources = append(o.kindSources, obj.Source)
	}
	var err error
	if len(set.Deployments) > 0 {
		var results []manifest.Result
		if results, err = manifest.PlanSet(ctx, set, o.setConfig()); err != nil {
			return err
		}
		sc, err := o.setConfigRestarts(ctx, set, results)
		if err != nil {
			return err
		}
		err = o.printSet(set, results, sc)
	} else {
		err = o.printSetPlans(set, nil, printer.Summary{}, nil, nil)
		if err == nil {
			err = o.reportErrors(set.Errors)
		}
	}
	if failed := o.reportKindErrors(); err == nil && failed > 0 {
		return NewExitError(ExitError, "")
	}
	if err == nil && o.FailOnStall && slices.ContainsFunc(o.kindRows, func(r printer.KindSummaryRow) bool { return pipeline.KindStalls(r.Plan) }) {
		return NewExitError(ExitStalled, "")
	}
	return err
}

// reportKindErrors writes an "error: ..." line for each StatefulSet or DaemonSet of the set
// that could not be planned (its context too, across contexts) and returns their count.
func (o *PreviewOptions) reportKindErrors() int {
	failed := 0
	for i, r := range o.kindRows {
		if r.Err != nil {
			where := o.kindSources[i]
			if r.Context != "" {
				where = "context " + r.Context + ", " + where
			}
			fmt.Fprintf(o.ErrOut, "error: %s/%s (namespace %s, %s): %v\n", strings.ToLower(r.Workload.Kind), r.Workload.Name, r.Workload.Namespace, where, r.Err)
			failed++
		}
	}
	return failed
}

// planSetKinds plans the set's StatefulSets and DaemonSets (kinds) in one context's Source,
// one row each (the context named, Err when it could not be planned).
func (o *PreviewOptions) planSetKinds(ctx context.Context, src pipeline.KindSource, context string, kinds []manifest.Object) []printer.KindSummaryRow {
	now := metav1.NewTime(o.Now().UTC().Truncate(time.Second))
	rows := make([]printer.KindSummaryRow, 0, len(kinds))
	timing, _ := pipeline.ParseKindTiming(o.Timing.PodReadyAfter, o.Timing.SyncLatency) // Validate refused a bad value
	for _, obj := range kinds {
		p, err := pipeline.PlanKindManifest(ctx, src, obj.Object, planner.Readiness(o.Readiness), now, timing)
		row := printer.KindSummaryRow{Context: context, Workload: pipeline.WorkloadRef{Kind: obj.Kind(), Namespace: obj.Object.GetNamespace(), Name: obj.Object.GetName()}, Err: err}
		if err == nil {
			row.Plan = p.Plan
		}
		rows = append(rows, row)
	}
	return rows
}

// kindPlans returns the RolloutPlans of the set's StatefulSets and DaemonSets that have one.
func (o *PreviewOptions) kindPlans() []*v1alpha1.RolloutPlan {
	var out []*v1alpha1.RolloutPlan
	for i, r := range o.kindRows {
		if r.Plan != nil {
			p := printer.NewKindRolloutPlan(r.Plan, o.Readiness)
			p.Manifest = &v1alpha1.PlanManifest{Source: o.kindSources[i]}
			p.Context = r.Context
			out = append(out, p)
		}
	}
	return out
}

// printSetKinds writes the StatefulSets' and DaemonSets' summary table and plans.
func (o *PreviewOptions) printSetKinds() error {
	if len(o.kindRows) == 0 {
		return nil
	}
	fmt.Fprintln(o.Out)
	withContext := o.Contexts.many()
	if err := printer.PrintKindSummary(o.Out, o.kindRows, withContext); err != nil {
		return err
	}
	for _, r := range o.kindRows {
		if r.Plan != nil && !o.Summary {
			if withContext {
				fmt.Fprintf(o.Out, "context %s: ", r.Context)
			}
			printer.PrintKindPlan(o.Out, r.Plan)
		}
	}
	return nil
}
