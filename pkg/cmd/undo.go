package cmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubectl/pkg/util/templates"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
)

var (
	undoLong = templates.LongDesc(`
		Roll a Deployment back to an earlier revision, as 'kubectl rollout undo' does, after
		saying exactly what will happen.

		The preview gives the outcome kubectl would have now (will roll back; skipped, when
		the template already matches the revision; refused, when the Deployment is paused;
		revision not found), the diff of the live pod template against the revision's, the
		Deployment annotations kubectl's patch drops or changes (it replaces
		metadata.annotations), kubectl's last-applied-configuration warning, and the rollout
		plan that follows (the controller reuses the revision's ReplicaSet).

		The patch is kubectl's JSON patch, byte for byte, preceded by a test of the previewed
		metadata.resourceVersion: if the Deployment changed meanwhile nothing is written.
		--patch-only prints kubectl's patch and changes nothing. The exit code of a dry run is
		the one the real run would have (1 for refused and not found).

		StatefulSets and DaemonSets (sts/NAME, ds/NAME, or the type with -l/--all) are rolled back with kubectl's own
		patch, the revision's data
		(docs/statefulsets-daemonsets.md).`)

	undoExample = templates.Examples(`
		# What would 'kubectl rollout undo' do now? (nothing is changed)
		kubectl rollplan undo deploy/web --dry-run=client

		# Roll back to revision 3, checked by the API server first
		kubectl rollplan undo deploy/web --to-revision 3 --dry-run=server
		kubectl rollplan undo deploy/web --to-revision 3

		# Just the patch, for review or 'kubectl patch --type json'
		kubectl rollplan undo deploy/web --to-revision 3 --patch-only

		# Roll back three Deployments to their previous revisions (one preview each, one question)
		kubectl rollplan undo deploy web api worker`)
)

// UndoOptions holds the flags and dependencies of "kubectl rollplan undo".
type UndoOptions struct {
	ToRevision int64
	PatchOnly  bool
	// Output is -o json|yaml: the patch alone, then the write.
	Output string
	writeVerb
}

// NewUndoOptions returns UndoOptions with defaults.
func NewUndoOptions(streams genericiooptions.IOStreams) *UndoOptions {
	return &UndoOptions{writeVerb: newWriteVerb("undo", streams)}
}

// NewCmdUndo returns "kubectl rollplan undo".
func NewCmdUndo(f cmdutil.Factory, streams genericiooptions.IOStreams) *cobra.Command {
	o := NewUndoOptions(streams)
	cmd := &cobra.Command{
		Use:                   "undo ((deploy/NAME | NAME) ... | -l SELECTOR | --all) [--to-revision N] [--yes] [--dry-run=none|client|server] [--patch-only]",
		DisableFlagsInUseLine: true,
		Short:                 "Roll a Deployment back after showing the outcome, the diff and the rollout that follows",
		Long:                  undoLong,
		Example:               undoExample,
		RunE:                  kindsRunE(f, streams, "undo", runE(f, o)),
	}
	cmd.Flags().Int64Var(&o.ToRevision, "to-revision", 0, "The revision to roll back to. Default 0: the previous revision.")
	cmd.Flags().BoolVar(&o.PatchOnly, "patch-only", false, "Print only kubectl's JSON patch and change nothing.")
	cmd.Flags().StringVarP(&o.Output, "output", "o", "", "Print only the patch, as json or yaml, instead of the preview (the patch is still applied unless --dry-run).")
	o.writeVerb.addFlags(cmd, true)
	o.Writer.addFlags(cmd)
	return cmd
}

// Validate checks the flags. A negative --to-revision is not an error here: kubectl reports
// it as a revision not found, and so does the preview.
func (o *UndoOptions) Validate() error {
	if o.Output != "" && o.Output != "json" && o.Output != "yaml" {
		return fmt.Errorf("unknown output format %q: undo prints its patch with -o json or -o yaml", o.Output)
	}
	return o.writeVerb.validate()
}

// Run previews, confirms and writes the rollback of each Deployment
// (pipeline.UndoCommand), printed by printer.UndoView.
func (o *UndoOptions) Run(ctx context.Context) error {
	run := &pipeline.UndoRun{ToRevision: o.ToRevision, Readiness: pipeline.Readiness(o.Readiness), DryRun: o.DryRun,
		Sink: o.Sink, FieldManager: o.FieldManager, Checks: pipeline.NewWriteChecks(o.Feas.Checks)}
	view := printer.UndoView{BatchReport: o.report(o.Out), Out: o.Out, Output: o.Output, MaxSteps: o.MaxSteps}
	c := &pipeline.UndoCommand{UndoRun: run, Writes: o.writes(&o.IOStreams), PatchOnly: o.PatchOnly, Patch: o.Output != "",
		FailOnStall: o.Feas.FailOnStall, View: view}
	return stallExit(c.Run(ctx))
}
