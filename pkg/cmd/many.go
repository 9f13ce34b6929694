package cmd

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// Many is what undo, pause, resume and restart hold to act on many Deployments (issue 8):
// the Deployments selected, whether the selection may name more than one, and the one
// confirmation's flag and terminal check.
type Many struct {
	// Select holds -l/--selector, --all and --chunk-size (target.Flags, kubectl rollout's).
	Select *target.Flags
	// Refs are the Deployments selected, in order; empty: the Writer's Target alone.
	Refs []target.Ref
	// Several is set when the selection was not one named Deployment (several names, -l,
	// --all): one confirmation for all, a failed Deployment named on stderr and the others
	// still done, and the exit error naming each that failed. Unset, a verb behaves as it
	// always has on one Deployment.
	Several bool
	// Yes skips the confirmation (--yes).
	Yes bool
	// Terminal says whether standard input and error are a terminal (the confirmation).
	Terminal func() bool

	verb   string // the command, for messages ("restart")
	client kubernetes.Interface
}

// addFlags registers -l/--selector, --all, --chunk-size and --yes on cmd.
func (m *Many) addFlags(cmd *cobra.Command) {
	if m.Select != nil {
		m.Select.AddFlags(cmd)
	}
	cmd.Flags().BoolVarP(&m.Yes, "yes", "y", false, "Do not ask before writing when several Deployments are selected (without a terminal, required to write more than one).")
}

// objects returns the Deployments a Writer acts on: its Refs, or its Target's one (none when
// several were asked for and none matched).
func (w *Writer) objects() []rollout.Object {
	if len(w.Refs) == 0 && !w.Several {
		return []rollout.Object{{Namespace: w.Namespace, Name: w.Name}}
	}
	out := make([]rollout.Object, len(w.Refs))
	for i, r := range w.Refs {
		out[i] = rollout.Object{Namespace: r.Namespace, Name: r.Name}
	}
	return out
}

// resolve sets the Deployments of sel (several names, or the LIST of -l/--all) and the
// client. One named Deployment is the Target, as always. A run that would have to ask
// without a terminal is refused before -l/--all lists anything. Errors: Selection.Resolve's.
func (w *Writer) resolve(sel *target.Selection, client func() (kubernetes.Interface, error)) error {
	w.Client, w.Namespace = client, sel.Namespace
	w.Several = sel.Bulk()
	if err := w.checkConfirm(w.verb); err != nil {
		return err
	}
	// -l, --all: one paginated LIST through the builder, sent again whole through transient
	// failures, as every other read (Resolve reads through kube.Read); names ask nothing.
	refs, err := sel.Resolve(context.Background())
	if err != nil {
		return err
	}
	if !w.Several && len(refs) == 1 {
		w.Ref, w.Refs = refs[0], nil
		return nil
	}
	w.Refs, w.Several = refs, true
	return nil
}

// asks reports whether the verb asks once before writing: several Deployments, a real run,
// no --yes.
func (w *Writer) asks() bool {
	return w.Several && w.DryRun == cmdutil.DryRunNone && !w.Yes
}

// checkConfirm refuses, before anything is read, a run that would have to ask without a
// terminal to ask on.
func (w *Writer) checkConfirm(verb string) error {
	if !w.asks() || (w.Terminal != nil && w.Terminal()) {
		return nil
	}
	return fmt.Errorf("standard input is not a terminal, so %s cannot ask before changing several Deployments: pass --yes to %s them without asking, or --dry-run=client to preview only", verb, verb)
}

// runBatch runs b over the Writer's Deployments (pipeline.RunBatch), asking once first when
// it asks; printer.BatchReport prints each result line to result ("deployment.apps/web
// restarted") and each failure and a declined confirmation on stderr. None selected is a
// line on stderr and no error.
func runBatch[T any](ctx context.Context, w *Writer, streams genericiooptions.IOStreams, verb string, result io.Writer, b rollout.Batch[T]) error {
	objs := w.objects()
	if len(objs) == 0 {
		printer.PrintNoneSelected(streams.ErrOut, w.Namespace)
		return nil
	}
	if err := w.checkConfirm(verb); err != nil {
		return err
	}
	if w.asks() {
		b.Confirm = confirm(streams.In, streams.ErrOut, verb)
	}
	return pipeline.RunBatch(ctx, verb, objs, w.Several, b, printer.BatchReport{Verb: verb, Result: result, ErrOut: streams.ErrOut, DryRun: w.DryRun})
}

// confirm returns a Batch's Confirm: the question on w (stderr), the answer from r; y or
// yes goes on, anything else (and end of input) declines.
func confirm(r io.Reader, w io.Writer, verb string) func([]rollout.Object, int) (bool, error) {
	return func(ready []rollout.Object, failed int) (bool, error) {
		return askYes(r, w, printer.ConfirmPrompt(verb, ready, failed)), nil
	}
}

// clientset returns the client, made once.
func (w *Writer) clientset() (kubernetes.Interface, error) {
	if w.client == nil {
		client, err := w.Client()
		if err != nil {
			return nil, err
		}
		w.client = client
	}
	return w.client, nil
}
