package cmd

import (
	"context"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// Many is what undo, pause, resume and restart hold to act on many Deployments (issue 8;
// pipeline.Writes is what they act on): the selection flags, the Deployments selected and
// the one confirmation's flag and terminal check.
type Many struct {
	// Select holds -l/--selector, --all and --chunk-size (target.Flags, kubectl rollout's).
	Select *target.Flags
	// Refs are the Deployments selected, in order; empty: the Writer's Target alone.
	Refs []target.Ref
	// Several: not one named Deployment; Yes: --yes; Terminal: whether standard input and
	// error are a terminal (pipeline.Writes' fields of the same names).
	Several, Yes bool
	Terminal     func() bool
	verb         string // the command, for messages ("restart")
}

// addFlags registers -l/--selector, --all, --chunk-size and --yes on cmd.
func (m *Many) addFlags(cmd *cobra.Command) {
	if m.Select != nil {
		m.Select.AddFlags(cmd)
	}
	cmd.Flags().BoolVarP(&m.Yes, "yes", "y", false, "Do not ask before writing when several Deployments are selected (without a terminal, required to write more than one).")
}

// resolve sets the Deployments of sel and the client: the names (no request), or for
// -l/--all/-A one paginated LIST of Deployments (Selection.Resolve, through kube.Read's
// retries). The references are enough: each write reads its Deployment again (a GET and a
// LIST) just before its guarded patch, so the selection reads no ReplicaSets. One named
// Deployment is the Target, as always. A run that would have to ask without a terminal is
// refused before -l/--all lists anything.
func (w *Writer) resolve(sel *target.Selection, client func() (kubernetes.Interface, error)) error {
	w.Client, w.Namespace, w.Several = client, sel.Namespace, sel.Bulk()
	if err := w.writes(genericiooptions.IOStreams{}).CheckConfirm(); err != nil {
		return err
	}
	refs, err := sel.Resolve(context.Background())
	if w.Refs, w.Several = refs, true; err == nil && !sel.Bulk() && len(refs) == 1 {
		w.Ref, w.Refs, w.Several = refs[0], nil, false
	}
	return err
}

// writes is what the Writer acts on (its Refs, or its Target's one), asking on streams.
func (w *Writer) writes(streams genericiooptions.IOStreams) *pipeline.Writes {
	return &pipeline.Writes{Verb: w.verb, Namespace: w.Namespace, Several: w.Several, DryRun: w.DryRun, Yes: w.Yes,
		Terminal: w.Terminal, Client: w.Client, Objects: pipeline.ObjectsOf(w.Refs, w.Ref, w.Several),
		Confirm: printer.Confirm(streams.In, streams.ErrOut, w.verb)}
}
