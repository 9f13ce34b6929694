package cmd

import (
	"context"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/printers"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/drive"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
)

// runFleet prints the drive status of every selected Deployment: one line each (human), or
// with -o (p) kubectl's v1 List of DriveStatus objects. Failed Deployments are named on
// stderr, the others printed; exit 1 if any failed.
func (o *DriveStatusOptions) runFleet(ctx context.Context, p printers.ResourcePrinter) error {
	members, err := o.Fleet.load(ctx, "")
	if err != nil {
		return err
	}
	if len(members) == 0 {
		fmt.Fprintln(o.ErrOut, noneFound(o.Fleet.Selection.Scope().Namespace))
	}
	now := o.Now()
	var statuses []*v1alpha1.DriveStatus
	var failed []fleetMember
	for _, m := range members {
		if m.Err == nil {
			var snap *drive.Snapshot
			if snap, m.Err = drive.NewSnapshot(m.State); m.Err == nil {
				statuses = append(statuses, drive.Status(snap, now))
				continue
			}
		}
		failed = append(failed, m)
	}
	if err := printDriveStatuses(o.Out, p, statuses); err != nil {
		return err
	}
	return fleetExit(o.Fleet.failures(o.ErrOut, failed), 0, false)
}

// printDriveStatuses prints statuses with p (-o: one v1 List) or, without p, as the status
// lines (printer.PrintDriveStatusLines; nothing when there is none).
func printDriveStatuses(out io.Writer, p printers.ResourcePrinter, statuses []*v1alpha1.DriveStatus) error {
	if p == nil {
		if len(statuses) == 0 {
			return nil
		}
		return printer.PrintDriveStatusLines(out, statuses)
	}
	objs := make([]runtime.Object, 0, len(statuses))
	for _, s := range statuses {
		objs = append(objs, s)
	}
	l, err := newList(objs)
	if err != nil {
		return err
	}
	return p.PrintObj(l, out)
}
