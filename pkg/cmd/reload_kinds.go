package cmd

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/client-go/kubernetes"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/reloadoneshot"
)

// reloadKinds restarts, after the Deployments, the opted-in StatefulSets and DaemonSets of
// the namespace (every namespace with -A; -l narrows) whose pods see a changed key
// (reloadoneshot.RestartKinds), one at a time, waiting for each rollout (--timeout). It runs for
// -l/--all/-A only (named targets are Deployments), not with --adopt, and writes with --yes
// or --dry-run=server (there is no prompt for these kinds yet); with --dry-run=client it
// writes nothing. One line per restart on stdout (stderr with -o).
func (o *ReloadOptions) reloadKinds(ctx context.Context, client kubernetes.Interface) error {
	if o.Adopt || !(o.Select.All || o.Select.Selector != "" || o.Select.AllNamespaces) {
		return nil
	}
	if !o.Yes && o.DryRun != cmdutil.DryRunServer {
		return nil
	}
	ns := o.Selection.Namespace // -A: "" (every namespace)
	res, err := reloadoneshot.RestartKinds(ctx, client, cluster.NewConfig(client), ns, reloadoneshot.KindOptions{
		Selector: o.Select.Selector, DryRun: o.DryRun == cmdutil.DryRunServer, Timeout: o.Timeout, FieldManager: o.FieldManager,
	})
	if err != nil {
		return err
	}
	out := o.Out
	if !o.Output.Human() {
		out = o.ErrOut
	}
	suffix := ""
	if o.DryRun == cmdutil.DryRunServer {
		suffix = " (server dry run)"
	}
	var errs []error
	for _, r := range res {
		m := r.Workload.Meta()
		name := fmt.Sprintf("%s.apps/%s", strings.ToLower(string(r.Workload.Kind())), m.GetName())
		if r.Restarted {
			fmt.Fprintf(out, "%s restarted%s\n", name, suffix)
		}
		if r.Err != nil {
			errs = append(errs, r.Err)
		}
	}
	return utilerrors.NewAggregate(errs)
}

// pollKinds is the watch mode for StatefulSets and DaemonSets: every interval (the grace
// period, at least 2s) it runs reloadoneshot.RestartKinds over namespace ("" all) and selector,
// printing each restart on out and each error on errOut, until ctx ends. Not with leader
// election (runReloadWatch does not start it then).
func pollKinds(ctx context.Context, client kubernetes.Interface, namespace, selector string, timeout time.Duration, fieldManager string, interval time.Duration, out, errOut io.Writer) {
	config := func() *cluster.Config { return cluster.NewConfig(client) }
	for {
		res, err := reloadoneshot.RestartKinds(ctx, client, config(), namespace, reloadoneshot.KindOptions{Selector: selector, Timeout: timeout, FieldManager: fieldManager})
		if apierrors.IsForbidden(err) {
			// The shipped Role (deploy/reload) grants Deployments only: these kinds are off.
			fmt.Fprintln(errOut, "StatefulSets and DaemonSets are not watched: this identity may not list them (grant get, list and patch on statefulsets and daemonsets to watch them)")
			return
		}
		if err != nil && ctx.Err() == nil {
			fmt.Fprintln(errOut, "warning: "+err.Error())
		}
		for _, r := range res {
			if r.Restarted {
				fmt.Fprintf(out, "%s.apps/%s restarted (namespace %s)\n", strings.ToLower(string(r.Workload.Kind())), r.Workload.Meta().GetName(), r.Workload.Meta().GetNamespace())
			}
			if r.Err != nil && ctx.Err() == nil {
				fmt.Fprintln(errOut, "warning: "+r.Err.Error())
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(interval):
		}
	}
}
