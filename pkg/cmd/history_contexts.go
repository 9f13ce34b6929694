package cmd

import (
	"context"
	"fmt"
	"slices"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
)

// selectContexts selects sel in every context's Source at the same time (pipeline.SelectEach,
// the one selection path). members[i] and errs[i] are context i's.
func (c *ContextFlags) selectContexts(ctx context.Context, sel pipeline.Selection) ([][]pipeline.Member, []error) {
	srcs, errs := c.sources()
	members, selErrs := pipeline.SelectEach(ctx, srcs, sel)
	for i, err := range selErrs {
		if err != nil {
			errs[i] = err
		}
	}
	return members, errs
}

// runContexts prints the history of the selection in every context: human, one section per
// Deployment headed "Context: NAME"; -o, one v1 List whose RolloutHistory items carry
// context. A context that could not be read is one line "error: context NAME: REASON", a
// Deployment that could not be read one line naming its context; the others are printed.
// Exit 1 if anything failed.
func (o *HistoryOptions) runContexts(ctx context.Context) error {
	sel := o.Fleet.Selection
	ps, err := pipeline.SelectionOf(ctx, sel)
	if err != nil {
		return err
	}
	ps.ExplicitNamespace, ps.RequireNamespace = sel.EnforceNamespace, true
	perContext, errs := o.Contexts.selectContexts(ctx, ps)
	hs, failed := pipeline.Histories(slices.Concat(perContext...))
	if o.Output.Human() {
		if err := printer.PrintHistories(o.Out, hs, o.Now(), true); err != nil {
			return err
		}
	}
	failedContexts := 0
	for _, err := range errs {
		if err != nil {
			failedContexts++
		}
	}
	if len(hs)+len(failed) == 0 && failedContexts == 0 {
		fmt.Fprintln(o.ErrOut, noneFound(sel.Scope().Namespace))
	}
	if !o.Output.Human() {
		if err := o.printList(hs, true); err != nil {
			return err
		}
	}
	for i, err := range errs {
		if err != nil {
			printer.PrintContextFailure(o.ErrOut, o.Contexts.resolved[i], err)
		}
	}
	var names []string
	for _, m := range failed {
		printer.PrintFailure(o.ErrOut, printer.Failure{Namespace: m.Namespace, Name: m.Name, WithNamespace: sel.AllNamespaces, Source: "context " + m.Source, Err: m.Err})
		names = append(names, printer.DeploymentName(m.Namespace, m.Name, sel.AllNamespaces)+" (context "+m.Source+")")
	}
	if len(names) == 0 && failedContexts > 0 {
		return NewExitError(ExitError, "")
	}
	return fleetExit(names, 0, false)
}
