package cmd

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/kubernetes"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
	"github.com/rollplan/kubectl-rollplan/pkg/reload"
	"github.com/rollplan/kubectl-rollplan/pkg/reloadoneshot"
	"github.com/rollplan/kubectl-rollplan/pkg/workload"
)

// kindsSelected reports whether the run selects StatefulSets and DaemonSets: named ones
// (sts/NAME, ds/NAME, ...), or with -l/--all/-A the opted-in ones besides the Deployments.
func (o *ReloadOptions) kindsSelected() bool {
	if o.KindArgs.Kind != "" || len(o.KindArgs.Refs) > 0 {
		return true
	}
	return o.Select.All || o.Select.Selector != "" || o.Select.AllNamespaces
}

// namedKinds reports whether the arguments named StatefulSets or DaemonSets (then no
// Deployment is selected).
func (o *ReloadOptions) namedKinds() bool {
	return o.KindArgs.Kind != "" || len(o.KindArgs.Refs) > 0
}

// assessKinds reads and assesses the selected StatefulSets and DaemonSets
// (reloadoneshot.AssessKind): the named ones (no opt-in needed), or the opted-in ones of the
// namespace (every namespace with -A; -l narrows; a bare "sts"/"ds" argument keeps that
// kind). Nil when none is selected.
func (o *ReloadOptions) assessKinds(ctx context.Context, client kubernetes.Interface) ([]*reloadoneshot.KindTarget, error) {
	if !o.kindsSelected() {
		return nil, nil
	}
	var ws []workload.Workload
	if len(o.KindArgs.Refs) > 0 {
		for _, ref := range o.KindArgs.Refs {
			w, err := reloadoneshot.GetKind(ctx, client, ref)
			if err != nil {
				return nil, err
			}
			ws = append(ws, w)
		}
	} else {
		ns := o.kindsNamespace
		if o.Select.AllNamespaces {
			ns = ""
		}
		all, err := reloadoneshot.ListKinds(ctx, client, ns, o.Select.Selector)
		if err != nil {
			return nil, err
		}
		for _, w := range all {
			if o.KindArgs.Kind == "" || string(w.Kind()) == string(o.KindArgs.Kind) {
				ws = append(ws, w)
			}
		}
	}
	config := cluster.NewConfig(client)
	out := make([]*reloadoneshot.KindTarget, 0, len(ws))
	for _, w := range ws {
		t, err := reloadoneshot.AssessKind(ctx, config, w, o.Adopt)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// writeKinds carries out each kind's write, one at a time (each restart waited for up to
// --timeout unless a dry run), after the Deployments'; with --dry-run=client nothing is
// sent. One result line each on w.
func (o *ReloadOptions) writeKinds(ctx context.Context, client kubernetes.Interface, kinds []*reloadoneshot.KindTarget, w io.Writer) []error {
	var results []reloadoneshot.KindResult
	for _, k := range kinds {
		if !k.Writes() {
			continue
		}
		if o.DryRun == cmdutil.DryRunClient {
			results = append(results, reloadoneshot.KindResult{Workload: k.Workload, Decision: k.Decision,
				Restarted: k.Action == reload.ActionRestart, Adopted: k.Action == reload.ActionAdopt})
			continue
		}
		results = append(results, reloadoneshot.WriteKind(ctx, client, k, reloadoneshot.KindOptions{
			DryRun: o.DryRun == cmdutil.DryRunServer, Timeout: o.Timeout, FieldManager: o.FieldManager,
		}))
	}
	return printer.PrintReloadKindResults(w, results, printer.DryRunSuffix(o.DryRun))
}

func countKindWrites(kinds []*reloadoneshot.KindTarget) int {
	n := 0
	for _, k := range kinds {
		if k.Writes() {
			n++
		}
	}
	return n
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
