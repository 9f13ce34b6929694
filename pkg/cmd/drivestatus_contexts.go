package cmd

import (
	"context"
	"fmt"

	"k8s.io/cli-runtime/pkg/printers"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/drive"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
)

// runContexts prints the drive status of the selection in every context (pipeline Source
// Select of each, at the same time): one table, CONTEXT first (human), or with -o (p) one v1
// List of DriveStatus objects carrying their context. A context that could not be read is one
// line "error: context NAME: REASON", a Deployment one line naming its context; the others
// are printed. Exit 1 if anything failed.
func (o *DriveStatusOptions) runContexts(ctx context.Context, p printers.ResourcePrinter) error {
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
	now := o.Now()
	var statuses []*v1alpha1.DriveStatus
	var names []string
	found := false
	for _, members := range perContext {
		for _, m := range members {
			found = true
			if m.Err == nil {
				var snap *drive.Snapshot
				if snap, m.Err = drive.NewSnapshot(m.State); m.Err == nil {
					s := drive.Status(snap, now)
					s.Context = m.Source
					statuses = append(statuses, s)
					continue
				}
			}
			printer.PrintFailure(o.ErrOut, printer.Failure{Namespace: m.Namespace, Name: m.Name, WithNamespace: sel.AllNamespaces, Source: "context " + m.Source, Err: m.Err})
			names = append(names, printer.DeploymentName(m.Namespace, m.Name, sel.AllNamespaces)+" (context "+m.Source+")")
		}
	}
	failedContexts := 0
	for i, err := range errs {
		if err != nil {
			printer.PrintContextFailure(o.ErrOut, o.Contexts.resolved[i], err)
			failedContexts++
		}
	}
	if !found && failedContexts == 0 {
		fmt.Fprintln(o.ErrOut, noneFound(sel.Scope().Namespace))
	}
	if err := printDriveStatuses(o.Out, p, statuses); err != nil {
		return err
	}
	if len(names) == 0 && failedContexts > 0 {
		return NewExitError(ExitError, "")
	}
	return fleetExit(names, 0, false)
}
