package cmd

import (
	"context"
	"errors"
	"fmt"
	"sync"

	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
	"github.com/rollplan/kubectl-rollplan/pkg/reload"
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

// contextTargets are the assessed targets of one context, or why it could not be read.
type contextTargets struct {
	targets []*reloadoneshot.Target
	err     error
}

// runContexts assesses the selection in every context at the same time (pipeline Source
// Select, then reloadoneshot.Assess with the context's client) and prints one table with CONTEXT
// first and each restart's plan naming its context, or with -o one RolloutPlanList whose
// items carry their context. Nothing is written and nothing is asked. A context that could
// not be read (or a Deployment in it) is one line "error: context NAME: REASON"; the others
// are printed; exit 1 then.
func (o *ReloadOptions) runContexts(ctx context.Context) error {
	sel := o.Selection
	ps := pipeline.Selection{Bulk: sel.Bulk(), Scope: sel.Scope(), ExplicitNamespace: sel.EnforceNamespace, RequireNamespace: true}
	if !ps.Bulk {
		refs, err := sel.Resolve(ctx)
		if err != nil {
			return err
		}
		ps.Refs = refs
	}
	srcs, errs := o.Contexts.sources()
	per := make([]contextTargets, len(srcs))
	var wg sync.WaitGroup
	for i, src := range srcs {
		per[i].err = errs[i]
		if src == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			per[i].targets, per[i].err = o.assessIn(ctx, src, ps)
		}()
	}
	wg.Wait()
	var targets []*reloadoneshot.Target
	var contexts []string
	for i, r := range per {
		for _, t := range r.targets {
			targets, contexts = append(targets, t), append(contexts, o.Contexts.resolved[i])
		}
	}
	if err := o.printContexts(targets, contexts); err != nil {
		return err
	}
	failed := 0
	for i, r := range per {
		if r.err != nil {
			printer.PrintContextFailure(o.ErrOut, o.Contexts.resolved[i], r.err)
			failed++
		}
	}
	if failed > 0 {
		return NewExitError(ExitError, "")
	}
	return nil
}

// assessIn reads the selection in src (-l/--all/-A: its opted-in Deployments, as load) and
// assesses it with src's client. Errors: the Select's, a named Deployment's, Assess's.
func (o *ReloadOptions) assessIn(ctx context.Context, src *pipeline.Live, ps pipeline.Selection) ([]*reloadoneshot.Target, error) {
	members, err := src.Select(ctx, ps)
	if err != nil {
		return nil, err
	}
	var states []*cluster.State
	for _, m := range members {
		switch {
		case m.Err != nil:
			return nil, fmt.Errorf("%s: %w", printer.DeploymentName(m.Namespace, m.Name, true), m.Err)
		case !ps.Bulk || reload.OptedIn(m.State.Deployment):
			states = append(states, m.State)
		}
	}
	client, err := src.Client()
	if err != nil {
		return nil, err
	}
	return reloadoneshot.Assess(ctx, client, cluster.NewConfig(client), states,
		reloadoneshot.AssessOptions{Adopt: o.Adopt, Readiness: planner.Readiness(o.Readiness)})
}

// printContexts prints the targets of every context: the human table and plans with their
// context, or one RolloutPlanList whose items carry it.
func (o *ReloadOptions) printContexts(targets []*reloadoneshot.Target, contexts []string) error {
	if o.Output.Human() {
		if err := printer.PrintReloadContexts(o.Out, targets, contexts, printer.PlanOptions{MaxSteps: o.MaxSteps, ChartWidth: 30}); err != nil {
			return err
		}
		if countWrites(targets) > 0 {
			fmt.Fprintf(o.Out, "\nNothing was written: across %d contexts reload only shows its restarts; run it with --yes once per context (--context).\n", len(o.Contexts.resolved))
		}
		return nil
	}
	plans := make([]*planner.Plan, len(targets))
	for i, t := range targets {
		var err error
		if plans[i], err = t.OutputPlan(planner.Readiness(o.Readiness)); err != nil {
			return err
		}
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
