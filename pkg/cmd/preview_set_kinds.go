package cmd

import (
	"context"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
)

// kindManifests returns the apps/v1 StatefulSets and DaemonSets of set (pipeline.KindManifests).
var kindManifests = pipeline.KindManifests

// runSetKinds previews a manifest set holding StatefulSets or DaemonSets: its Deployments as
// runSet plans a set (none: no Deployment table), then each StatefulSet and DaemonSet
// (pipeline.PlanKindManifests, read from the state file or the cluster), their summary table
// and plans after the Deployments' (-o: their RolloutPlans in the same RolloutPlanList, each
// with its workload). An object that could not be planned is an "error: ..." line and exit 1.
func (o *PreviewOptions) runSetKinds(ctx context.Context, set *pipeline.ManifestSet, kinds []pipeline.ManifestObject) error {
	pipeline.DropKindManifests(set)
	src := pipeline.NewKindSource(o.StateFile, o.Client)
	checks, _ := feasibility.ParseChecks(o.Checks)                                      // Validate refused a bad value
	timing, _ := pipeline.ParseKindTiming(o.Timing.PodReadyAfter, o.Timing.SyncLatency) // Validate refused a bad value
	o.kindRows = append(o.kindRows, pipeline.PlanKindManifests(ctx, src, "", kinds, o.Readiness, o.Now(), timing, checks)...)
	for _, obj := range kinds {
		o.kindSources = append(o.kindSources, obj.Source)
	}
	var err error
	if len(set.Deployments) > 0 {
		var results []pipeline.SetResult
		if results, err = pipeline.PlanSet(ctx, set, o.setConfig()); err != nil {
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
	if err == nil && o.FailOnStall && pipeline.AnyKindStalls(o.kindRows) {
		return NewExitError(ExitStalled, "")
	}
	return err
}

// reportKindErrors writes an "error: ..." line for each StatefulSet or DaemonSet of the set
// that could not be planned (printer.PrintSetKindErrors) and returns their count.
func (o *PreviewOptions) reportKindErrors() int {
	return printer.PrintSetKindErrors(o.ErrOut, o.kindRows, o.kindSources)
}

// planSetKinds plans the set's StatefulSets and DaemonSets (kinds) in one context's Source,
// one row each (the context named, Err when it could not be planned; no feasibility check).
func (o *PreviewOptions) planSetKinds(ctx context.Context, src pipeline.KindSource, context string, kinds []pipeline.ManifestObject) []printer.KindSummaryRow {
	timing, _ := pipeline.ParseKindTiming(o.Timing.PodReadyAfter, o.Timing.SyncLatency) // Validate refused a bad value
	return pipeline.PlanKindManifests(ctx, src, context, kinds, o.Readiness, o.Now(), timing, nil)
}

// kindPlans returns the RolloutPlans of the set's StatefulSets and DaemonSets that have one.
func (o *PreviewOptions) kindPlans() []*v1alpha1.RolloutPlan {
	return printer.NewSetKindPlans(o.kindRows, o.kindSources, o.Readiness)
}

// printSetKinds writes the StatefulSets' and DaemonSets' summary table and plans.
func (o *PreviewOptions) printSetKinds() error {
	return printer.PrintSetKinds(o.Out, o.kindRows, o.Contexts.many(), o.Summary)
}
