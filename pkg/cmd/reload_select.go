package cmd

import (
	"context"
	"errors"

	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/drive"
	"github.com/rollplan/kubectl-rollplan/pkg/driverun"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
	"github.com/rollplan/kubectl-rollplan/pkg/reloadoneshot"
)

// driveRestart returns the reloadoneshot.RunOptions.Drive of --drive (driverun.Restart):
// each restart's Desired Deployment walked by drive (with --interval, --progress-timeout,
// --lease-duration), asking before each step on a terminal unless --yes.
func (o *ReloadOptions) driveRestart(client kubernetes.Interface) func(context.Context, *reloadoneshot.Target) error {
	base := drive.Options{
		Client: client, Interval: o.DriveFlags.Interval, ProgressTimeout: o.DriveFlags.ProgressTimeout,
		LeaseDuration: o.DriveFlags.LeaseDuration, Now: o.Now, FieldManager: o.FieldManager,
	}
	walk := func() (func(drive.Event), func(context.Context, drive.StepInfo) (drive.Answer, error), error) {
		progress := printer.NewDriveProgress(o.ErrOut, o.Terminal()).Event
		if o.Yes {
			return progress, nil, nil
		}
		if !o.Terminal() {
			return nil, nil, errors.New("standard input is not a terminal, so drive cannot ask before each step: pass --yes")
		}
		return progress, promptStep(o.In, o.ErrOut), nil
	}
	return driverun.Restart(base, walk, func(ns, name string, p *drive.Prepared) error {
		return printer.PrintDrivePrepared(o.ErrOut, ns, name, p)
	})
}
