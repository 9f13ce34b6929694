package cmd

import (
	"context"
	"errors"
	"fmt"

	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/pkg/printer"
	"github.com/rollplan/kubectl-rollplan/pkg/reloadoneshot"
)

// validateContexts refuses, with several contexts, what would write (pure).
func (o *ReloadOptions) validateContexts() error {
	switch {
	case !o.Contexts.many():
		return nil
	case o.Yes || o.Drive:
		return fmt.Errorf("reload writes to one cluster: --contexts names %d contexts; without --yes it only shows each context's restarts, or run it once per context with --context", len(o.Contexts.resolved))
	case o.Watch.Watch:
		return errors.New("reload --watch restarts in one cluster: run it once per context with --context")
	case o.DryRun == cmdutil.DryRunServer:
		return errors.New("--dry-run=server sends each restart to one cluster: run it once per context with --context")
	}
	return nil
}

// runContexts assesses the selection in every context at the same time
// (reloadoneshot.Config.AssessContexts) and prints one table with CONTEXT first and each
// restart's plan naming its context, or with -o one RolloutPlanList whose items carry their
// context. Nothing is written and nothing is asked. A context that could not be read (or a
// Deployment in it) is one line "error: context NAME: REASON"; the others are printed; exit
// 1 then.
func (o *ReloadOptions) runContexts(ctx context.Context) error {
	c := o.config(nil)
	srcs, errs := o.Contexts.sources()
	per, err := c.AssessContexts(ctx, srcs, errs)
	if err != nil {
		return err
	}
	targets, contexts := reloadoneshot.Flatten(per, o.Contexts.resolved)
	if err := o.printContexts(c, targets, contexts); err != nil {
		return err
	}
	failed := 0
	for i, r := range per {
		if r.Err != nil {
			printer.PrintContextFailure(o.ErrOut, o.Contexts.resolved[i], r.Err)
			failed++
		}
	}
	if failed > 0 {
		return NewExitError(ExitError, "")
	}
	return nil
}

// printContexts prints the targets of every context: the human table and plans with their
// context, or one RolloutPlanList whose items carry it.
func (o *ReloadOptions) printContexts(c *reloadoneshot.Config, targets []*reloadoneshot.Target, contexts []string) error {
	if o.Output.Human() {
		if err := printer.PrintReloadContexts(o.Out, targets, contexts, printer.PlanOptions{MaxSteps: o.MaxSteps, ChartWidth: 30}); err != nil {
			return err
		}
		if reloadoneshot.CountWrites(targets) > 0 {
			fmt.Fprintf(o.Out, "\nNothing was written: across %d contexts reload only shows its restarts; run it with --yes once per context (--context).\n", len(o.Contexts.resolved))
		}
		return nil
	}
	plans, err := c.OutputPlans(targets)
	if err != nil {
		return err
	}
	list := printer.NewReloadPlanList(targets, plans)
	for i := range list.Items {
		list.Items[i].Context = contexts[i]
	}
	p, err := o.Output.ToPrinter()
	if err != nil {
		return err
	}
	return p.PrintObj(list, o.Out)
}
