package cmd

import (
	"context"
	"fmt"
	"io"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/kubernetes"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"sigs.k8s.io/yaml"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
	"github.com/rollplan/kubectl-rollplan/pkg/workload"
	"github.com/rollplan/kubectl-rollplan/pkg/workload/live"
)

// kindWrite is one object's previewed undo or restart: the patch kubectl sends (nil: nothing
// to send, a skipped rollback) and kubectl's result word.
type kindWrite struct {
	w         workload.Workload
	patch     []byte
	operation string
}

// write previews undo or restart on every object (the preview, or with -o kubectl's patch),
// asks once for several (real run, no --yes), then sends each guarded patch (nothing for
// --dry-run=client; --dry-run=server asks the API server) and prints kubectl's result line.
func (o *KindsOptions) write(ctx context.Context, client kubernetes.Interface, refs []target.KindRef) error {
	var ready []*kindWrite
	err := o.each(refs, func(r target.KindRef) error {
		kw, err := o.preview(ctx, client, r)
		if err == nil {
			ready = append(ready, kw)
		}
		return err
	})
	if len(ready) == 0 {
		return err
	}
	if o.several() && o.DryRun == cmdutil.DryRunNone && !o.Yes && !o.confirm(len(ready), ready[0].w.Ref().Namespace) {
		fmt.Fprintf(o.ErrOut, "%s declined: nothing was changed.\n", o.Verb)
		return err
	}
	result := o.Out
	if o.Output != "" {
		result = o.ErrOut
	}
	var failed []string
	for _, kw := range ready {
		ref := kw.w.Ref()
		if kw.patch != nil {
			if perr := o.sink().Workload(ctx, client, kw.w, kw.patch); perr != nil {
				if !o.several() {
					return o.failure(perr)
				}
				fmt.Fprintf(o.ErrOut, "error: %s (namespace %s): %v\n", ref, ref.Namespace, perr)
				failed = append(failed, ref.String())
				continue
			}
		}
		if perr := printer.PrintWorkloadResult(result, ref.String(), kw.operation, o.DryRun); perr != nil {
			return perr
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("%s failed for %d: %v", o.Verb, len(failed), failed)
	}
	return err
}

// failure words a failed undo as kubectl does ("failed restoring revision N: ...").
func (o *KindsOptions) failure(err error) error {
	if o.Verb == "undo" {
		return fmt.Errorf("failed restoring revision %d: %w", o.ToRevision, err)
	}
	return err
}

// preview reads one object, decides the verb and prints the preview (or -o the patch).
func (o *KindsOptions) preview(ctx context.Context, client kubernetes.Interface, ref target.KindRef) (*kindWrite, error) {
	if o.Verb == "restart" {
		w, err := live.Get(ctx, client, ref)
		if err != nil {
			return nil, err
		}
		at := o.Now().Truncate(time.Second)
		p, err := workload.RestartPatch(w, at)
		if err != nil {
			return nil, err
		}
		if string(p) == "{}" {
			return nil, workload.RestartAgainError(ref.Name)
		}
		if o.Output != "" {
			return &kindWrite{w: w, patch: p, operation: "restarted"}, printer.PrintPatch(o.Out, p, o.Output)
		}
		fmt.Fprintf(o.Out, "%s (namespace %s): restart: the pod template gets %s=%s, a new revision; the controller replaces every pod (%s).\n",
			ref, ref.Namespace, workload.RestartedAtAnnotation, at.Format(time.RFC3339), strategyWords(w))
		fmt.Fprintf(o.Out, "Patch (kubectl's, strategic merge): %s\n\n", p)
		return &kindWrite{w: w, patch: p, operation: "restarted"}, nil
	}
	st, err := live.Load(ctx, client, ref)
	if err != nil {
		return nil, err
	}
	u, err := workload.PreviewUndo(st.Workload, st.Revisions, o.ToRevision)
	if err != nil {
		return nil, err
	}
	kw := &kindWrite{w: st.Workload, patch: u.Patch, operation: u.Message}
	if o.Output != "" {
		if u.Skipped {
			return kw, nil
		}
		return kw, printer.PrintPatch(o.Out, u.Patch, o.Output)
	}
	if u.Skipped {
		fmt.Fprintf(o.Out, "%s (namespace %s): the pod template already is revision %d (%s): kubectl skips the rollback.\n\n", ref, ref.Namespace, u.Revision, u.ControllerRevision)
		return kw, nil
	}
	from, _ := yaml.Marshal(u.From)
	to, _ := yaml.Marshal(u.To)
	fmt.Fprintf(o.Out, "%s (namespace %s): roll back to revision %d (controllerrevision %s): the controller reuses that revision, renumbered, and replaces the pods (%s).\n",
		ref, ref.Namespace, u.Revision, u.ControllerRevision, strategyWords(st.Workload))
	fmt.Fprint(o.Out, rollout.UnifiedDiff("live template", fmt.Sprintf("revision %d", u.Revision), string(from), string(to)))
	fmt.Fprintln(o.Out)
	return kw, nil
}

// strategyWords says how the controller replaces the pods under the object's strategy.
func strategyWords(w workload.Workload) string {
	switch {
	case w.UpdateStrategy() == "OnDelete":
		return "OnDelete: only as you delete them"
	case w.StatefulSet != nil:
		return "RollingUpdate: highest ordinal first, down to the partition"
	default:
		return "RollingUpdate: node by node, within maxUnavailable and maxSurge"
	}
}

// confirm asks once on stderr before writing several objects; y or yes goes on.
func (o *KindsOptions) confirm(n int, namespace string) bool {
	return askYes(o.In, o.ErrOut, fmt.Sprintf("%s %d %s in namespace %q as previewed above? [y/N]: ", o.Verb, n, o.noun(), namespace))
}

// printYAMLOrJSON prints obj with cli-runtime's JSON or YAML printer.
func printYAMLOrJSON(w io.Writer, format string, obj runtime.Object) error {
	var p printers.ResourcePrinter = &printers.JSONPrinter{}
	if format == "yaml" {
		p = &printers.YAMLPrinter{}
	}
	return p.PrintObj(obj, w)
}

// sink is o.Sink, or when nil the Sink of --dry-run and --field-manager.
func (o *KindsOptions) sink() pipeline.Sink {
	if o.Sink != nil {
		return o.Sink
	}
	return pipeline.NewSink(o.DryRun, o.FieldManager)
}
