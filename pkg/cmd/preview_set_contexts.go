package cmd

import (
	"context"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
)

// runSetContexts previews a manifest set (-f/-k; with a name, that Deployment of it) in every
// context (pipeline.Preview.PlanSetContexts): each context checks the set's namespaces, then
// plans the set on its own live state, pipeline.DefaultSources contexts at once; the set's
// StatefulSets and DaemonSets are planned in each context too (planSetKinds). Printed as
// runContexts prints, with the SOURCE column of a set, the kinds' table with its CONTEXT
// column after it. ConfigMaps and Secrets (config restarts) are previewed in one context only.
func (o *PreviewOptions) runSetContexts(ctx context.Context) error {
	set, err := o.setRead().ReadForContexts()
	if err != nil {
		return err
	}
	kinds := kindManifests(set)
	pipeline.DropKindManifests(set)
	srcs, errs := o.Contexts.sources()
	kindRows := make([][]printer.KindSummaryRow, len(srcs))
	results, errs := o.preview().PlanSetContexts(ctx, set, srcs, errs, o.Fleet.Select.ChunkSize, func(ctx context.Context, i int, live *pipeline.Live) {
		kindRows[i] = o.planSetKinds(ctx, live, o.Contexts.resolved[i], kinds)
	})
	runs := make([]setRun, len(srcs))
	for i := range srcs {
		runs[i] = setRun{Context: o.Contexts.resolved[i], Results: results[i], Err: errs[i]}
	}
	for _, rows := range kindRows {
		for j, r := range rows {
			o.kindRows = append(o.kindRows, r)
			o.kindSources = append(o.kindSources, kinds[j].Source)
		}
	}
	err = o.printSets(set, runs, nil)
	if failed := o.reportKindErrors(); err == nil && failed > 0 {
		return NewExitError(ExitError, "")
	}
	return err
}
