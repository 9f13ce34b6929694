package cmd

import (
	"context"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/kubernetes"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// write previews undo or restart on every object (the preview, or with -o kubectl's patch),
// asks once for several (real run, no --yes), then sends each guarded patch (nothing for
// --dry-run=client; --dry-run=server asks the API server) and prints kubectl's result line.
func (o *KindsOptions) write(ctx context.Context, client kubernetes.Interface, refs []target.KindRef) error {
	var ready []*pipeline.KindWrite
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
	if o.several() && o.DryRun == cmdutil.DryRunNone && !o.Yes && !o.confirm(len(ready), ready[0].Workload.Ref().Namespace) {
		fmt.Fprintf(o.ErrOut, "%s declined: nothing was changed.\n", o.Verb)
		return err
	}
	result := o.Out
	if o.Output != "" {
		result = o.ErrOut
	}
	var failed []string
	for _, kw := range ready {
		ref := kw.Workload.Ref()
		if kw.Patch != nil {
			if perr := o.sink().Workload(ctx, client, kw.Workload, kw.Patch); perr != nil {
				if !o.several() {
					return o.failure(perr)
				}
				fmt.Fprintf(o.ErrOut, "error: %s (namespace %s): %v\n", ref, ref.Namespace, perr)
				failed = append(failed, ref.String())
				continue
			}
		}
		if perr := printer.PrintWorkloadResult(result, ref.String(), kw.Operation, o.DryRun); perr != nil {
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

// preview reads one object, decides the verb (pipeline.PreviewKindWrite) and prints the
// preview (printer.PrintKindWritePreview), or with -o kubectl's patch.
func (o *KindsOptions) preview(ctx context.Context, client kubernetes.Interface, ref target.KindRef) (*pipeline.KindWrite, error) {
	kw, err := pipeline.PreviewKindWrite(ctx, client, ref, o.Verb, o.ToRevision, o.Now())
	if err != nil {
		return nil, err
	}
	switch {
	case o.Output == "":
		printer.PrintKindWritePreview(o.Out, ref, kw)
	case kw.Patch != nil:
		return kw, printer.PrintPatch(o.Out, kw.Patch, o.Output)
	}
	return kw, nil
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
