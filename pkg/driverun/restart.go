package driverun

import (
	"context"
	"fmt"

	"github.com/rollplan/kubectl-rollplan/pkg/drive"
	"github.com/rollplan/kubectl-rollplan/pkg/reloadoneshot"
)

// Restart returns the reloadoneshot.RunOptions.Drive of `reload --drive`: each restart's
// Desired Deployment walked by drive with base's options (Client, Interval,
// ProgressTimeout, LeaseDuration, FieldManager, Now; Namespace, Name and Desired are the
// target's). Per restart, walk returns the Progress and Confirm of that walk (Confirm nil:
// never asks) or why it cannot ask, and prepared shows the plan before the first step.
//
// Errors (per restart): walk's; Prepare's; prepared's; Run's; a drive that did not end
// handed back complete ("drive stopped with outcome ...: run `kubectl rollplan drive ...` to
// continue").
func Restart(base drive.Options, walk func() (progress func(drive.Event), confirm func(context.Context, drive.StepInfo) (drive.Answer, error), err error),
	prepared func(namespace, name string, p *drive.Prepared) error) func(context.Context, *reloadoneshot.Target) error {
	return func(ctx context.Context, t *reloadoneshot.Target) error {
		dep := t.State.Deployment
		opts := base
		opts.Namespace, opts.Name, opts.Desired = dep.Namespace, dep.Name, t.Desired
		var err error
		if opts.Progress, opts.Confirm, err = walk(); err != nil {
			return err
		}
		d := drive.New(opts)
		prep, err := d.Prepare(ctx)
		if err != nil {
			return err
		}
		if err := prepared(dep.Namespace, dep.Name, prep); err != nil {
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
