package cmd

import (
	"context"
	"errors"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
)

// StatusContextTimeout bounds the read of one context of several (pipeline.StatusContextTimeout).
const StatusContextTimeout = pipeline.StatusContextTimeout

// runContexts shows the status of the selection in every context, read at the same time
// (pipeline.ReadContextsStatus: status.Follow once per context, no --watch) and printed by
// printer.PrintContextStatuses. Exit: exitOf's for the statuses read (3 for a rollout past
// its deadline), else 1 when a context failed.
func (o *StatusOptions) runContexts(ctx context.Context) error {
	if o.Watch {
		return errors.New("status --watch follows one cluster: drop --watch, or run it once per context with --context")
	}
	cfg, err := o.config()
	if err != nil {
		return err
	}
	p, err := o.toPrinter()
	if err != nil {
		return err
	}
	srcs, errs := o.Contexts.sources()
	own := !o.Selection.AllNamespaces && !o.Selection.EnforceNamespace
	results := pipeline.ReadContextsStatus(ctx, o.Contexts.resolved, srcs, errs, cfg, o.Checks, own)
	all, failed, err := printer.PrintContextStatuses(o.Out, o.ErrOut, p, results, len(cfg.Names) == 1, noneFound(o.Selection.Scope().Namespace))
	if err != nil {
		return err
	}
	if err := exitOf(all, false, 0, o.FailFastAfter); err != nil {
		return err
	}
	if failed > 0 {
		return NewExitError(ExitError, "")
	}
	return nil
}
