package cmd

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubectl/pkg/util/templates"
	"sigs.k8s.io/yaml"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
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
	Output     string
	Readiness  string
	MaxSteps   int
	// Feas is --checks and --fail-on-stall, run on the plan of a rollback.
	Feas writeChecks

	Writer
	// Sink receives the patches (nil: pipeline.NewSink of --dry-run and --field-manager).
	Sink pipeline.Sink

	genericiooptions.IOStreams
}

// NewUndoOptions returns UndoOptions with defaults.
func NewUndoOptions(streams genericiooptions.IOStreams) *UndoOptions {
	return &UndoOptions{
		Writer:    newWriter("undo", streams),
		Readiness: string(planner.ReadinessBatched),
		MaxSteps:  40,
		Feas:      newWriteChecks(),
		IOStreams: streams,
	}
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
	addReadinessFlag(cmd, &o.Readiness)
	o.Feas.addFlags(cmd)
	cmd.Flags().IntVar(&o.MaxSteps, "max-steps", o.MaxSteps, "Rows of the step table; the middle of a longer plan is elided (0: all).")
	o.Writer.addFlags(cmd)
	return cmd
}

// Validate checks the flags. A negative --to-revision is not an error here: kubectl reports
// it as a revision not found, and so does the preview.
func (o *UndoOptions) Validate() error {
	if err := validateReadiness(o.Readiness); err != nil {
		return err
	}
	switch o.Output {
	case "", "json", "yaml":
	default:
		return fmt.Errorf("unknown output format %q: undo prints its patch with -o json or -o yaml", o.Output)
	}
	if err := o.Writer.validate(); err != nil {
		return err
	}
	return o.Feas.validate()
}

// Run reads each Deployment and its ReplicaSets, previews the rollback and, unless a dry
// run, sends kubectl's patch guarded by the previewed resourceVersion. Several Deployments
// are all previewed, then confirmed once, then written one by one (runBatch); a Deployment
// without the revision, or paused, is named and the others are still rolled back.
func (o *UndoOptions) Run(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if o.PatchOnly || o.Output != "" {
		return o.runPatch(ctx)
	}
	b := rollout.Batch[*undoItem]{Preview: o.previewOne, Apply: o.apply}
	return runBatch(ctx, &o.Writer, o.IOStreams, "undo", o.Out, b)
}

// undoItem is one Deployment's previewed rollback.
type undoItem struct {
	client kubernetes.Interface
	state  *cluster.State
	undo   *rollout.Undo
}

// previewOne reads the Deployment, previews the rollback (with --dry-run=server, checked by
// the server) and prints the preview; kubectl's refusals (not found, paused) are printed
// and are the error.
func (o *UndoOptions) previewOne(ctx context.Context, ref rollout.Object) (*undoItem, error) {
	client, state, u, err := o.previewUndo(ctx, ref)
	if err != nil {
		return nil, err
	}
	if err := o.printPreview(ctx, client, state, u, false); err != nil {
		return nil, err
	}
	return &undoItem{client: client, state: state, undo: u}, nil
}

// previewUndo reads the Deployment, prints kubectl's last-applied-configuration warning if
// it applies, and previews the rollback.
func (o *UndoOptions) previewUndo(ctx context.Context, ref rollout.Object) (kubernetes.Interface, *cluster.State, *rollout.Undo, error) {
	client, state, err := o.loadObject(ctx, ref)
	if err != nil {
		return nil, nil, nil, err
	}
	if _, ok := state.Deployment.Annotations[corev1.LastAppliedConfigAnnotation]; ok {
		printer.PrintLastAppliedWarning(o.ErrOut, ref.Name)
	}
	u, err := rollout.PreviewUndo(state.Deployment, state.ReplicaSets, o.ToRevision)
	if err != nil {
		return nil, nil, nil, err
	}
	return client, state, u, nil
}

// runPatch is --patch-only and -o json|yaml (one Deployment): kubectl's patch alone, then
// (-o, a rollback) the write, with kubectl's result line on stderr.
func (o *UndoOptions) runPatch(ctx context.Context) error {
	objs := o.objects()
	if len(objs) != 1 || o.Several {
		return fmt.Errorf("--patch-only and -o print the patch of one Deployment: %d selected; name one", len(objs))
	}
	client, state, u, err := o.previewUndo(ctx, objs[0])
	if err != nil {
		return err
	}
	if err := o.printPatch(u); err != nil || o.PatchOnly || u.Outcome != rollout.UndoRollBack {
		return err
	}
	if err := o.printPreview(ctx, client, state, u, true); err != nil {
		return err
	}
	op, err := o.apply(ctx, &undoItem{client: client, state: state, undo: u})
	if err != nil {
		return err
	}
	return printer.PrintResult(o.ErrOut, o.Name, op, o.DryRun)
}

// printPatch prints kubectl's patch alone (json or yaml), or for an outcome without a patch
// kubectl's message (skipped: on stderr, exit 0; refused, not found: an error).
func (o *UndoOptions) printPatch(u *rollout.Undo) error {
	switch u.Outcome {
	case rollout.UndoSkipped:
		return printer.PrintResult(o.ErrOut, o.Name, u.Message, cmdutil.DryRunNone)
	case rollout.UndoRefused, rollout.UndoNotFound:
		return errors.New(u.Message)
	}
	return printer.PrintPatch(o.Out, u.Patch.Kubectl, o.Output)
}

// printPreview checks a rollback with the server (--dry-run=server), runs the feasibility
// checks on its plan and prints the preview (unless quiet); a refused or not-found rollback
// is then the error, and with --fail-on-stall a plan that stalls (ExitStalled).
func (o *UndoOptions) printPreview(ctx context.Context, client kubernetes.Interface, state *cluster.State, u *rollout.Undo, quiet bool) error {
	var plan *planner.Plan
	var feas *feasibility.Result
	var notes []string
	if u.Outcome == rollout.UndoRollBack {
		result := u.Result
		if o.DryRun == cmdutil.DryRunServer {
			server, err := sinkOf(o.Sink, &o.Writer).Deployment(ctx, client, state.Deployment, u.Patch)
			if err != nil {
				return fmt.Errorf("failed restoring revision %d: %w", u.Revision, err)
			}
			notes = serverNotes(u.Result, server)
			result = server
		}
		var err error
		if plan, err = rollout.Plan(result, state.ReplicaSets, planner.Readiness(o.Readiness)); err != nil {
			return err
		}
		if feas, plan, err = o.Feas.check(ctx, client, planner.Readiness(o.Readiness), state, result, plan); err != nil {
			return err
		}
	}
	if !quiet {
		if err := printer.PrintUndo(o.Out, u, plan, printer.PlanOptions{MaxSteps: o.MaxSteps, ChartWidth: 30}); err != nil {
			return err
		}
		if err := printer.PrintFeasibility(o.Out, feas); err != nil {
			return err
		}
		printer.PrintNotes(o.Out, notes...)
	}
	if u.Failed() {
		return errors.New(u.Message)
	}
	return o.Feas.refuse(state.Deployment.Name, feas)
}

// apply sends the rollback (a real run of a rollback; nothing otherwise) and returns
// kubectl's message ("rolled back", "skipped rollback (...)").
func (o *UndoOptions) apply(ctx context.Context, it *undoItem) (string, error) {
	u := it.undo
	if u.Outcome == rollout.UndoRollBack && o.DryRun != cmdutil.DryRunServer { // the preview sent the server's dry run
		if _, err := sinkOf(o.Sink, &o.Writer).Deployment(ctx, it.client, it.state.Deployment, u.Patch); err != nil {
			return "", fmt.Errorf("failed restoring revision %d: %w", u.Revision, err)
		}
	}
	return u.Message, nil
}

// serverNotes compares the Deployment the server's dry run returned with the prediction.
func serverNotes(predicted, server *appsv1.Deployment) []string {
	var notes []string
	if apiequality.Semantic.DeepEqual(predicted.Spec.Template, server.Spec.Template) &&
		apiequality.Semantic.DeepEqual(predicted.Annotations, server.Annotations) {
		return append(notes, "Server dry run: accepted; the server's result has exactly the predicted pod template and annotations.")
	}
	notes = append(notes, "Server dry run: accepted, but the server's result differs from the prediction (an admission webhook or defaulting?):")
	a, _ := yaml.Marshal(map[string]interface{}{"annotations": predicted.Annotations, "template": predicted.Spec.Template})
	b, _ := yaml.Marshal(map[string]interface{}{"annotations": server.Annotations, "template": server.Spec.Template})
	notes = append(notes, rollout.UnifiedDiff("predicted", "server", string(a), string(b)))
	return notes
}
