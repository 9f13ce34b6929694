package cmd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubectl/pkg/util/templates"

	"github.com/rollplan/kubectl-rollplan/pkg/driverun"
	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
)

var (
	pauseLong = templates.LongDesc(`
		Pause a Deployment, as 'kubectl rollout pause' does, after showing what the paused
		controller will do right now.

		A paused Deployment still gets proportional scaling: in the middle of a rollout the
		controller may top the ReplicaSets up to replicas+maxSurge, and revisionHistoryLimit
		cleanup still runs. The preview lists those writes (new pods assumed never to become
		available). The patch is kubectl's, {"spec":{"paused":true}}, sent with the previewed
		resourceVersion as a precondition: if the Deployment changed meanwhile nothing is
		written.`)

	pauseExample = templates.Examples(`
		# What happens if I pause now? (nothing is changed)
		kubectl rollplan pause deploy/web --dry-run=client

		# Pause
		kubectl rollplan pause deploy/web

		# Pause every Deployment in the namespace (one preview each, one question)
		kubectl rollplan pause --all`)

	resumeLong = templates.LongDesc(`
		Resume a paused Deployment, as 'kubectl rollout resume' does, after showing the
		rollout that resuming starts: for a Deployment paused with a pending template change,
		every ReplicaSet write of the whole rollout.

		The patch is kubectl's, {"spec":{"paused":null}}, sent with the previewed
		resourceVersion as a precondition: if the Deployment changed meanwhile nothing is
		written.`)

	resumeExample = templates.Examples(`
		# What does resuming roll out? (nothing is changed)
		kubectl rollplan resume deploy/web --dry-run=client

		# Resume
		kubectl rollplan resume deploy/web

		# Resume every Deployment labelled tier=front, without asking
		kubectl rollplan resume -l tier=front --yes`)

	restartLong = templates.LongDesc(`
		Restart a Deployment's pods, as 'kubectl rollout restart' does, after showing the plan
		of the rollout it starts.

		The pod template gets the annotation kubectl.kubernetes.io/restartedAt with the current
		time, which makes a new ReplicaSet. A paused Deployment is refused with kubectl's
		message. The patch is kubectl's strategic merge patch, sent with the previewed
		resourceVersion as a precondition: if the Deployment changed meanwhile nothing is
		written.

		StatefulSets and DaemonSets (sts/NAME, ds/NAME, or the type with -l/--all) get kubectl's restartedAt patch as well
		(docs/statefulsets-daemonsets.md).`)

	restartExample = templates.Examples(`
		# How will the restart roll? (nothing is changed)
		kubectl rollplan restart deploy/web --dry-run=client

		# Restart, checking the change with the API server first
		kubectl rollplan restart deploy/web --dry-run=server
		kubectl rollplan restart deploy/web

		# Restart every Deployment labelled app=web, after one preview each and one question
		kubectl rollplan restart deploy -l app=web

		# Restart two Deployments without asking
		kubectl rollplan restart deploy/web deploy/api --yes`)
)

// NewCmdPause returns "kubectl rollplan pause".
func NewCmdPause(f cmdutil.Factory, streams genericiooptions.IOStreams) *cobra.Command {
	return newActionCommand(f, NewActionOptions(rollout.VerbPause, streams), "Pause a Deployment after showing what the paused controller does right now", pauseLong, pauseExample)
}

// NewCmdResume returns "kubectl rollplan resume".
func NewCmdResume(f cmdutil.Factory, streams genericiooptions.IOStreams) *cobra.Command {
	return newActionCommand(f, NewActionOptions(rollout.VerbResume, streams), "Resume a paused Deployment after showing the rollout it starts", resumeLong, resumeExample)
}

// NewCmdRestart returns "kubectl rollplan restart".
func NewCmdRestart(f cmdutil.Factory, streams genericiooptions.IOStreams) *cobra.Command {
	return newActionCommand(f, NewActionOptions(rollout.VerbRestart, streams), "Restart a Deployment's pods after showing the rollout it starts", restartLong, restartExample)
}

// writeVerb is what undo, pause, resume and restart share: the plan's readiness and rows,
// --checks, --fail-on-stall, the Writer (selection, --dry-run, --yes ...), Sink, streams.
type writeVerb struct {
	Readiness string
	MaxSteps  int
	// Feas is --checks (default all) and --fail-on-stall (not pause: it starts no rollout):
	// pipeline.WriteChecks, and pipeline.RefuseStall's exit ExitStalled, unwritten.
	Feas struct {
		Checks      string
		FailOnStall bool
	}
	Writer
	// Sink receives the patches (nil: pipeline.NewSink of --dry-run and --field-manager).
	Sink pipeline.Sink
	genericiooptions.IOStreams
}

func newWriteVerb(verb string, streams genericiooptions.IOStreams) (o writeVerb) {
	o = writeVerb{Writer: newWriter(verb, streams), Readiness: pipeline.DefaultReadiness, MaxSteps: 40, IOStreams: streams}
	o.Feas.Checks = "all"
	return o
}

// addFlags registers the Writer's flags, --readiness, --checks and --fail-on-stall (plan: the
// verb starts a rollout) and --max-steps on cmd.
func (o *writeVerb) addFlags(cmd *cobra.Command, plan bool) {
	o.Writer.addFlags(cmd)
	if plan {
		addReadinessFlag(cmd, &o.Readiness)
		cmd.Flags().BoolVar(&o.Feas.FailOnStall, "fail-on-stall", false, fmt.Sprintf("Exit with code %d, writing nothing, when the plan ends Stalled.", ExitStalled))
		cmd.Flags().StringVar(&o.Feas.Checks, "checks", o.Feas.Checks, "Feasibility checks run on the plan before the write: a comma-separated list of quota, capacity, pdb, hpa, or all, or none.")
	}
	cmd.Flags().IntVar(&o.MaxSteps, "max-steps", o.MaxSteps, "Rows of the step table; the middle of a longer plan is elided (0: all).")
}

// validate checks --readiness, --field-manager and --checks (pure).
func (o *writeVerb) validate() error {
	if err := pipeline.ValidateReadiness(o.Readiness, false); err != nil {
		return err
	}
	if err := o.Writer.validate(); err != nil {
		return err
	}
	_, err := feasibility.ParseChecks(o.Feas.Checks)
	return err
}

// stallExit is err, or for a pipeline.StallError exit ExitStalled with its message.
func stallExit(err error) error {
	if se := (*pipeline.StallError)(nil); errors.As(err, &se) {
		return NewExitError(ExitStalled, se.Error())
	}
	return err
}

// ActionOptions holds the flags and dependencies of "kubectl rollplan pause", "resume" and
// "restart".
type ActionOptions struct {
	Verb rollout.Verb
	// Output prints the plan that follows as a RolloutPlan (json, yaml, ...) instead of the
	// human preview; kubectl's result line then goes to stderr.
	Output *printer.OutputFlags
	// Now is the clock: restart's restartedAt, and resume's view and hand-back of a Deployment
	// held by drive.
	Now func() time.Time
	writeVerb
}

// NewActionOptions returns ActionOptions for verb with defaults.
func NewActionOptions(verb rollout.Verb, streams genericiooptions.IOStreams) *ActionOptions {
	return &ActionOptions{Verb: verb, Output: printer.NewOutputFlags(), Now: time.Now, writeVerb: newWriteVerb(string(verb), streams)}
}

// newActionCommand builds the cobra command of a pause, resume or restart.
func newActionCommand(f cmdutil.Factory, o *ActionOptions, short, long, example string) *cobra.Command {
	cmd := &cobra.Command{
		Use:                   string(o.Verb) + " ((deploy/NAME | NAME) ... | -l SELECTOR | --all) [--yes] [--dry-run=none|client|server] [-o json|yaml]",
		DisableFlagsInUseLine: true,
		Short:                 short,
		Long:                  long,
		Example:               example,
		RunE:                  kindsRunE(f, o.IOStreams, string(o.Verb), runE(f, o)),
	}
	o.writeVerb.addFlags(cmd, o.Verb != rollout.VerbPause)
	o.Output.AddFlags(cmd)
	return cmd
}

// Validate checks the flags.
func (o *ActionOptions) Validate() error {
	if err := o.writeVerb.validate(); err != nil || o.Output.Human() {
		return err
	}
	_, err := o.Output.ToPrinter()
	return err
}

// Run previews, confirms and writes the verb on each Deployment (pipeline.ActionCommand),
// printed by printer.ActionView; resume hands a Deployment drive holds back
// (driverun.ResumeHeld).
func (o *ActionOptions) Run(ctx context.Context) error {
	rep := printer.BatchReport{Verb: o.verb, Result: o.Out, ErrOut: o.ErrOut, DryRun: o.DryRun}
	if !o.Output.Human() {
		rep.Result = o.ErrOut
	}
	view := printer.ActionView{BatchReport: rep, Out: o.Out, Output: o.Output, Several: o.Several, MaxSteps: o.MaxSteps}
	r := &pipeline.ActionRun{Verb: o.Verb, Readiness: pipeline.ActionReadiness(o.Verb, o.Readiness), DryRun: o.DryRun,
		Sink: o.Sink, FieldManager: o.FieldManager, Now: o.Now}
	c := &pipeline.ActionCommand{ActionRun: r, Writes: o.writes(o.IOStreams), Plans: !o.Output.Human(), View: view}
	if o.Verb != rollout.VerbPause {
		r.Checks, c.FailOnStall = pipeline.NewWriteChecks(o.Feas.Checks), o.Feas.FailOnStall
	}
	if o.Verb == rollout.VerbResume {
		h := &driverun.ResumeHeld{Readiness: r.Readiness, Now: o.Now, DryRun: o.DryRun != cmdutil.DryRunNone,
			Show: view.HandBack, Progress: printer.NewDriveProgress(o.ErrOut, false).Event}
		r.Held, c.HandBack = h.Preview, h.HandBack
	}
	return stallExit(c.Run(ctx))
}

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
	return cmd
}

// Validate checks the flags. A negative --to-revision is not an error here: kubectl reports
// it as a revision not found, and so does the preview.
func (o *UndoOptions) Validate() error {
	if err := pipeline.ValidateReadiness(o.Readiness, false); err != nil {
		return err
	}
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
	view := printer.UndoView{BatchReport: printer.BatchReport{Verb: o.verb, Result: o.Out, ErrOut: o.ErrOut, DryRun: o.DryRun}, Out: o.Out, Output: o.Output, MaxSteps: o.MaxSteps}
	c := &pipeline.UndoCommand{UndoRun: run, Writes: o.writes(o.IOStreams), PatchOnly: o.PatchOnly, Patch: o.Output != "",
		FailOnStall: o.Feas.FailOnStall, View: view}
	return stallExit(c.Run(ctx))
}
