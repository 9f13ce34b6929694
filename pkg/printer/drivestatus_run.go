package printer

import (
	"fmt"
	"io"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/printers"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/driverun"
)

// PrintDriveStatusList prints drive status of many Deployments: with p (-o) one v1 List of
// the DriveStatus objects, without p the status lines (PrintDriveStatusLines; nothing when
// there is none).
func PrintDriveStatusList(out io.Writer, p printers.ResourcePrinter, statuses []*v1alpha1.DriveStatus) error {
	if p == nil {
		if len(statuses) == 0 {
			return nil
		}
		return PrintDriveStatusLines(out, statuses)
	}
	objs := make([]runtime.Object, 0, len(statuses))
	for _, s := range statuses {
		objs = append(objs, s)
	}
	l, err := NewList(objs)
	if err != nil {
		return err
	}
	return p.PrintObj(l, out)
}

// PrintDriveStatusResult prints `drive status`'s answer (driverun.ReadStatus) at now: one
// Deployment's or StatefulSet's status, human (PrintDriveStatus, PrintStsDriveStatus) or
// through p (-o: the DriveStatus object); for many, on errOut one line per Deployment that
// failed (naming its context with --contexts), one per context that could not be read
// ("error: context NAME: REASON") and kubectl's line when nothing was selected, then the
// statuses on out (PrintDriveStatusList).
func PrintDriveStatusResult(out, errOut io.Writer, p printers.ResourcePrinter, r *driverun.StatusResult, now time.Time) error {
	switch {
	case !r.Many && p != nil:
		return p.PrintObj(r.One, out)
	case r.Sts:
		return PrintStsDriveStatus(out, r.One, now)
	case !r.Many:
		return PrintDriveStatus(out, r.One, now)
	}
	for _, m := range r.Failed {
		f := Failure{Namespace: m.Namespace, Name: m.Name, WithNamespace: r.WithNamespace, Err: m.Err}
		if len(r.Contexts) > 1 {
			f.Source = "context " + m.Source
		}
		PrintFailure(errOut, f)
	}
	for i, err := range r.ContextErrs {
		if err != nil {
			PrintContextFailure(errOut, r.Contexts[i], err)
		}
	}
	if !r.Found && r.FailedContexts() == 0 {
		fmt.Fprintln(errOut, NoneFound(r.Scope))
	}
	return PrintDriveStatusList(out, p, r.Statuses)
}
