package cmd

import (
	"context"
	"io"

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
		if err := reloadoneshot.LoadReuse(ctx, client, t); err != nil {
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
