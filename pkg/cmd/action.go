package cmd

import (
	"context"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/pkg/driverun"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
)

// DefaultFieldManager is the field manager rollplan's writes are recorded under
// (kube.FieldManager).
const DefaultFieldManager = pipeline.FieldManager

// DefaultReloadFieldManager is the field manager of reload's writes (kube.ReloadFieldManager:
// not "kubectl"-prefixed, so Flux does not take its fields over).
const DefaultReloadFieldManager = pipeline.ReloadFieldManager

// ActionOptions holds the flags and dependencies of "kubectl rollplan pause", "resume" and
// "restart".
type ActionOptions struct {
	Verb      rollout.Verb
	Readiness string
	MaxSteps  int
	// Output prints the plan that follows as a RolloutPlan (json, yaml, ...) instead of the
	// human preview; kubectl's result line then goes to stderr.
	Output *printer.OutputFlags
	// Feas is --checks and --fail-on-stall (resume and restart; pause starts no rollout).
	Feas writeChecks

	Writer
	// Sink receives the patches (nil: the one --dry-run and --field-manager name,
	// pipeline.NewSink).
	Sink pipeline.Sink
	// Now is the clock: restart's restartedAt, and resume's view and hand-back of a Deployment
	// held by drive.
	Now func() time.Time

	genericiooptions.IOStreams
}

// NewActionOptions returns ActionOptions for verb with defaults.
func NewActionOptions(verb rollout.Verb, streams genericiooptions.IOStreams) *ActionOptions {
	return &ActionOptions{
		Verb:      verb,
		Writer:    newWriter(string(verb), streams),
		Readiness: pipeline.DefaultReadiness,
		MaxSteps:  40,
		Output:    printer.NewOutputFlags(),
		Feas:      newWriteChecks(),
		Now:       time.Now,
		IOStreams: streams,
	}
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
	o.Writer.addFlags(cmd)
	if o.Verb != rollout.VerbPause {
		addReadinessFlag(cmd, &o.Readiness)
		o.Feas.addFlags(cmd)
	}
	cmd.Flags().IntVar(&o.MaxSteps, "max-steps", o.MaxSteps, "Rows of the step table; the middle of a longer plan is elided (0: all).")
	o.Output.AddFlags(cmd)
	return cmd
}

// Validate checks the flags.
func (o *ActionOptions) Validate() error {
	if err := validateReadiness(o.Readiness); err != nil {
		return err
	}
	if err := o.Writer.validate(); err != nil {
		return err
	}
	if err := o.Feas.validate(); err != nil {
		return err
	}
	if !o.Output.Human() {
		if _, err := o.Output.ToPrinter(); err != nil {
			return err
		}
	}
	return nil
}

// Run previews, confirms and writes the verb on each Deployment (pipeline.ActionCommand),
// printed by printer.ActionView; resume hands a Deployment drive holds back
// (driverun.ResumeHeld).
func (o *ActionOptions) Run(ctx context.Context) error {
	rep := printer.BatchReport{Verb: string(o.Verb), Result: o.Out, ErrOut: o.ErrOut, DryRun: o.DryRun}
	if !o.Output.Human() {
		rep.Result = o.ErrOut
	}
	view := printer.ActionView{BatchReport: rep, Out: o.Out, Output: o.Output, Several: o.Several, MaxSteps: o.MaxSteps}
	r := &pipeline.ActionRun{Verb: o.Verb, Readiness: pipeline.ActionReadiness(o.Verb, o.Readiness), DryRun: o.DryRun,
		Sink: o.Sink, FieldManager: o.FieldManager, Now: o.Now}
	c := &pipeline.ActionCommand{ActionRun: r, Writes: o.writes(&o.IOStreams), Plans: !o.Output.Human(), View: view}
	if o.Verb != rollout.VerbPause {
		r.Checks, c.FailOnStall = o.Feas.checks(), o.Feas.FailOnStall
	}
	if o.Verb == rollout.VerbResume {
		h := &driverun.ResumeHeld{Readiness: r.Readiness, Now: o.Now, DryRun: o.DryRun != cmdutil.DryRunNone,
			Show: view.HandBack, Progress: printer.NewDriveProgress(o.ErrOut, false).Event}
		r.Held, c.HandBack = h.Preview, h.HandBack
	}
	return stallExit(c.Run(ctx))
}
