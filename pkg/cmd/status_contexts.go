package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
	"github.com/rollplan/kubectl-rollplan/pkg/status"
)

// StatusContextTimeout bounds the read of one context of several (pipeline.StatusContextTimeout).
const StatusContextTimeout = pipeline.StatusContextTimeout

// contextStatus is what one context's read gave: its statuses, or why it could not be read.
type contextStatus struct {
	context string
	sts     []*status.Status
	err     error
}

// runContexts shows the status of the selection in every context, read at the same time
// (status.Follow once per context, no --watch). Human: one block headed "Context: NAME" per
// context for one named Deployment, else one line per Deployment led by its context; -o: one
// RolloutStatusList whose items carry their context. A context that could not be read is one
// line "error: context NAME: REASON" on stderr; the others are printed. Exit: exitOf's for
// the statuses read (3 for a rollout past its deadline), else 1 when a context failed.
func (o *StatusOptions) runContexts(ctx context.Context) error {
	if o.Watch {
		return errors.New("status --watch follows one cluster: drop --watch, or run it once per context with --context")
	}
	cfg, err := o.config()
	if err != nil {
		return err
	}
	srcs, errs := o.Contexts.sources()
	results := make([]contextStatus, len(srcs))
	var wg sync.WaitGroup
	for i, src := range srcs {
		results[i] = contextStatus{context: o.Contexts.resolved[i], err: errs[i]}
		if src == nil {
			continue
		}
		c := cfg // -A: every namespace; -n: its; else the context's own
		if !o.Selection.AllNamespaces && !o.Selection.EnforceNamespace && src.Namespace != "" {
			c.Namespace = src.Namespace
		}
		c.Feasible = pipeline.StatusChecks(o.Checks, src.Client)
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i].sts, results[i].err = pipeline.ReadContextStatus(ctx, src, c)
		}()
	}
	wg.Wait()
	return o.showContexts(results, len(cfg.Names) == 1)
}

// showContexts prints the statuses of every context (see runContexts) and returns the exit.
func (o *StatusOptions) showContexts(results []contextStatus, one bool) error {
	var all []*status.Status
	list := printer.NewRolloutStatusList(nil)
	width := 0
	for _, r := range results {
		width = max(width, len(r.context))
	}
	var out strings.Builder
	failed, found := 0, false
	for _, r := range results {
		if r.err != nil {
			failed++
			continue
		}
		for _, s := range r.sts {
			found = true
			all = append(all, s)
			obj := printer.NewRolloutStatus(s)
			obj.Context = r.context
			switch {
			case !o.Output.Human():
				list.Items = append(list.Items, *obj)
			case one:
				if out.Len() > 0 {
					out.WriteString("\n")
				}
				fmt.Fprintf(&out, "Context: %s\n", r.context)
				_ = printer.PrintRolloutStatus(&out, obj)
			default:
				fmt.Fprintf(&out, "%-*s  %s\n", width, r.context, printer.StatusLine(obj))
			}
		}
	}
	if !o.Output.Human() {
		p, err := o.Output.ToPrinter()
		if err != nil {
			return err
		}
		if err := p.PrintObj(list, o.Out); err != nil {
			return err
		}
	} else if _, err := fmt.Fprint(o.Out, out.String()); err != nil {
		return err
	}
	if !found && failed == 0 {
		fmt.Fprintln(o.ErrOut, noneFound(o.Selection.Scope().Namespace))
	}
	for _, r := range results {
		if r.err != nil {
			printer.PrintContextFailure(o.ErrOut, r.context, r.err)
		}
	}
	if err := exitOf(all, false, 0, o.FailFastAfter); err != nil {
		return err
	}
	if failed > 0 {
		return NewExitError(ExitError, "")
	}
	return nil
}
