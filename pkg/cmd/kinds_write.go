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
	ws := pipeline.KindWrites{Verb: o.Verb, ToRevision: o.ToRevision, Several: o.several(), Sink: o.sink()}
	if werr := ws.Send(ctx, client, ready, printer.KindWriteReport{Result: result, ErrOut: o.ErrOut, DryRun: o.DryRun}); werr != nil {
		return werr
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
