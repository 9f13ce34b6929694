package cmd

import (
	"context"
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
)

// selectContexts selects sel in every context's Source at the same time (pipeline.Source
// Select, the one selection path). members[i] and errs[i] are context i's.
func (c *ContextFlags) selectContexts(ctx context.Context, sel pipeline.Selection) ([][]pipeline.Member, []error) {
	srcs, errs := c.sources()
	members := make([][]pipeline.Member, len(srcs))
	var wg sync.WaitGroup
	for i, src := range srcs {
		if src == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			members[i], errs[i] = src.Select(ctx, sel)
		}()
	}
	wg.Wait()
	return members, errs
}

// runContexts prints the history of the selection in every context: human, one section per
// Deployment headed "Context: NAME"; -o, one v1 List whose RolloutHistory items carry
// context. A context that could not be read is one line "error: context NAME: REASON", a
// Deployment that could not be read one line naming its context; the others are printed.
// Exit 1 if anything failed.
func (o *HistoryOptions) runContexts(ctx context.Context) error {
	sel := o.Fleet.Selection
	ps := pipeline.Selection{Bulk: sel.Bulk(), Scope: sel.Scope(), ExplicitNamespace: sel.EnforceNamespace, RequireNamespace: true}
	if !ps.Bulk {
		refs, err := sel.Resolve(ctx)
		if err != nil {
			return err
		}
		ps.Refs = refs
	}
	perContext, errs := o.Contexts.selectContexts(ctx, ps)
	var objs []runtime.Object
	var failed []pipeline.Member
	now, first, found := o.Now(), true, false
	for _, members := range perContext {
		for _, m := range members {
			found = true
			if m.Err != nil {
				failed = append(failed, m)
				continue
			}
			h := rollout.BuildHistory(m.State.Deployment, m.State.ReplicaSets)
			if !o.Output.Human() {
				rh := printer.NewRolloutHistory(h, 0)
				rh.Context = m.Source
				objs = append(objs, rh)
				continue
			}
			if !first {
				fmt.Fprintln(o.Out)
			}
			first = false
			fmt.Fprintf(o.Out, "Context: %s\n", m.Source)
			if err := printer.PrintHistory(o.Out, h, now); err != nil {
				return err
			}
		}
	}
	failedContexts := 0
	for _, err := range errs {
		if err != nil {
			failedContexts++
		}
	}
	if !found && failedContexts == 0 {
		fmt.Fprintln(o.ErrOut, noneFound(sel.Scope().Namespace))
	}
	if !o.Output.Human() {
		if err := o.printList(objs); err != nil {
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
