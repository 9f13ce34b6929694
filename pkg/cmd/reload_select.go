package cmd

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/drive"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
	"github.com/rollplan/kubectl-rollplan/pkg/reloadoneshot"
)

// driveRestart returns the reloadoneshot.RunOptions.Drive of --drive: each restart's Desired
// Deployment walked by drive (with --interval, --progress-timeout, --lease-duration), asking
// before each step on a terminal unless --yes.
func (o *ReloadOptions) driveRestart(client kubernetes.Interface) func(context.Context, *reloadoneshot.Target) error {
	return func(ctx context.Context, t *reloadoneshot.Target) error {
		dep := t.State.Deployment
		opts := drive.Options{
			Client: client, Namespace: dep.Namespace, Name: dep.Name, Desired: t.Desired,
			Interval: o.DriveFlags.Interval, ProgressTimeout: o.DriveFlags.ProgressTimeout,
			LeaseDuration: o.DriveFlags.LeaseDuration, Progress: printer.NewDriveProgress(o.ErrOut, o.Terminal()).Event, Now: o.Now,
			FieldManager: o.FieldManager,
		}
		if !o.Yes {
			if !o.Terminal() {
				return errors.New("standard input is not a terminal, so drive cannot ask before each step: pass --yes")
			}
			opts.Confirm = promptStep(o.In, o.ErrOut)
		}
		d := drive.New(opts)
		prep, err := d.Prepare(ctx)
		if err != nil {
			return err
		}
		if err := printer.PrintDrivePrepared(o.ErrOut, dep.Namespace, dep.Name, prep); err != nil {
			return err
		}
		res, err := d.Run(ctx, prep)
		if err != nil {
			return err
		}
		if res.Outcome != drive.OutcomeComplete {
			return fmt.Errorf("drive stopped with outcome %s (%s): deployment %s stays where drive left it; run `kubectl rollplan drive deploy/%s -n %s` to continue", res.Outcome, res.Reason, t.Name(), dep.Name, dep.Namespace)
		}
		return nil
	}
}
