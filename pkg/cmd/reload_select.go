package cmd

import (
	"context"
	"errors"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/pager"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/drive"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
	"github.com/rollplan/kubectl-rollplan/pkg/reload"
	"github.com/rollplan/kubectl-rollplan/pkg/reload/oneshot"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// parseReloadNames parses reload's arguments: any number of deploy/NAME (or NAME), each in
// target.ParseName's forms, or "deployment NAME..." with the type first.
func parseReloadNames(args []string) ([]string, error) {
	if len(args) > 1 && target.IsDeploymentType(args[0]) {
		args = args[1:]
	}
	var names []string
	seen := map[string]bool{}
	for _, a := range args {
		n, err := target.ParseName(a)
		if err != nil {
			return nil, err
		}
		if !seen[n] {
			names = append(names, n)
			seen[n] = true
		}
	}
	return names, nil
}

// load reads the selected Deployments: the named ones (any opt-in), or with -l/--all the
// opted-in ones of the namespace (every namespace with -A), each with its ReplicaSets.
func (o *ReloadOptions) load(ctx context.Context, client kubernetes.Interface) ([]*cluster.State, error) {
	names := o.Names
	if len(names) == 0 {
		refs, err := o.listOptedIn(ctx, client)
		if err != nil {
			return nil, err
		}
		var states []*cluster.State
		for _, r := range refs {
			st, err := cluster.LoadLive(ctx, client, r.Namespace, r.Name)
			if err != nil {
				return nil, err
			}
			states = append(states, st)
		}
		return states, nil
	}
	var states []*cluster.State
	for _, n := range names {
		st, err := cluster.LoadLive(ctx, client, o.Namespace, n)
		if err != nil {
			return nil, err
		}
		states = append(states, st)
	}
	return states, nil
}

// listOptedIn lists Deployments (paginated, -l's selector) and keeps the opted-in ones
// (reload.OptedIn), in the API server's order (namespace, then name).
func (o *ReloadOptions) listOptedIn(ctx context.Context, client kubernetes.Interface) ([]target.Ref, error) {
	ns := o.Namespace
	if o.AllNamespaces {
		ns = metav1.NamespaceAll
	}
	var refs []target.Ref
	p := pager.New(func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		return client.AppsV1().Deployments(ns).List(ctx, opts)
	})
	err := p.EachListItem(ctx, metav1.ListOptions{LabelSelector: o.Selector}, func(obj runtime.Object) error {
		d, ok := obj.(*appsv1.Deployment)
		if !ok {
			return fmt.Errorf("list deployments: got %T", obj)
		}
		if reload.OptedIn(d) {
			refs = append(refs, target.Ref{Namespace: d.Namespace, Name: d.Name})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list deployments.apps in namespace %q: %w", ns, err)
	}
	return refs, nil
}

// driveRestart returns the oneshot.RunOptions.Drive of --drive: each restart's Desired
// Deployment walked by drive (with --interval, --progress-timeout, --lease-duration), asking
// before each step on a terminal unless --yes.
func (o *ReloadOptions) driveRestart(client kubernetes.Interface) func(context.Context, *oneshot.Target) error {
	return func(ctx context.Context, t *oneshot.Target) error {
		dep := t.State.Deployment
		opts := drive.Options{
			Client: client, Namespace: dep.Namespace, Name: dep.Name, Desired: t.Desired,
			Interval: o.DriveFlags.Interval, ProgressTimeout: o.DriveFlags.ProgressTimeout,
			LeaseDuration: o.DriveFlags.LeaseDuration, Progress: o.ErrOut, Live: o.Terminal(), Now: o.Now,
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
