package cmd

import (
	"context"
	"fmt"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
)

// runFleet prints the history of every selected Deployment: one section each (the history of
// one Deployment, a blank line between), or with -o kubectl's v1 List of RolloutHistory
// objects. Failed Deployments are named on stderr, the others printed; exit 1 if any failed.
func (o *HistoryOptions) runFleet(ctx context.Context) error {
	members, err := o.Fleet.load(ctx, o.StateFile)
	if err != nil {
		return err
	}
	if len(members) == 0 {
		fmt.Fprintln(o.ErrOut, noneFound(o.Fleet.Selection.Scope().Namespace))
	}
	hs, failed := pipeline.Histories(members)
	if o.Output.Human() {
		if err := printer.PrintHistories(o.Out, hs, o.Now(), false); err != nil {
			return err
		}
	} else if err := o.printList(hs, false); err != nil {
		return err
	}
	return fleetExit(o.Fleet.failures(o.ErrOut, failed), 0, false)
}

// printList prints hs as a v1 List of RolloutHistory through -o's printer (printer.NewHistoryList).
func (o *HistoryOptions) printList(hs []pipeline.MemberHistory, contexts bool) error {
	p, err := o.Output.ToPrinter()
	if err != nil {
		return err
	}
	l, err := printer.NewHistoryList(hs, contexts)
	if err != nil {
		return err
	}
	return p.PrintObj(l, o.Out)
}
