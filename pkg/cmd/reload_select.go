package cmd

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/drive"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
	"github.com/rollplan/kubectl-rollplan/pkg/reload"
	"github.com/rollplan/kubectl-rollplan/pkg/reloadoneshot"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// load reads the selected Deployments, each with its ReplicaSets (loadLive): the named ones
// (no opt-in needed), or, for -l/--all/-A, the opted-in ones (reload.OptedIn) of the LIST, in
// the API server's order. Every read goes through kube.Read: sent again whole through
// transient failures of the API server.
func (o *ReloadOptions) load(ctx context.Context, client kubernetes.Interface) ([]*cluster.State, error) {
	var refs []target.Ref
	if o.Selection.Bulk() {
		// One paginated LIST, sent again whole through transient failures (List: kube.Read).
		deps, err := o.Selection.List(ctx)
		if err != nil {
			return nil, err
		}
		for _, d := range deps {
			if reload.OptedIn(d) {
				refs = append(refs, target.Ref{Namespace: d.Namespace, Name: d.Name})
			}
		}
	} else {
		var err error
		if refs, err = o.Selection.Resolve(ctx); err != nil {
			return nil, err
		}
	}
	states := make([]*cluster.State, 0, len(refs))
	for _, r := range refs {
		st, err := loadLive(ctx, client, r.Namespace, r.Name)
		if err != nil {
			return nil, err
		}
		states = append(states, st)
	}
	return states, nil
}

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
