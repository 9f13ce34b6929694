package cmd

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/rollplan/kubectl-rollplan/pkg/printer"
	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
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
	var failed []fleetMember
	var objs []runtime.Object
	now := o.Now()
	first := true
	for _, m := range members {
		if m.Err != nil {
			failed = append(failed, m)
			continue
		}
		h := rollout.BuildHistory(m.State.Deployment, m.State.ReplicaSets)
		if !o.Output.Human() {
			objs = append(objs, printer.NewRolloutHistory(h, 0))
			continue
		}
		if !first {
			fmt.Fprintln(o.Out)
		}
		first = false
		if err := printer.PrintHistory(o.Out, h, now); err != nil {
			return err
		}
	}
	if !o.Output.Human() {
		if err := o.printList(objs); err != nil {
			return err
		}
	}
	return fleetExit(o.Fleet.failures(o.ErrOut, failed), 0, false)
}

// printList prints objs as a v1 List through -o's printer.
func (o *HistoryOptions) printList(objs []runtime.Object) error {
	p, err := o.Output.ToPrinter()
	if err != nil {
		return err
	}
	l, err := newList(objs)
	if err != nil {
		return err
	}
	return p.PrintObj(l, o.Out)
}
