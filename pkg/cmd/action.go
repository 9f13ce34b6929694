package cmd

import (
	"context"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

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

// Run reads each Deployment, previews the change and the controller's plan, and (unless a
// dry run) sends kubectl's patch guarded by the previewed resourceVersion. Several
// Deployments are all previewed, then confirmed once, then written one by one (runBatch).
func (o *ActionOptions) Run(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	result := o.Out
	if !o.Output.Human() {
		result = o.ErrOut
	}
	b := rollout.Batch[*pipeline.ActionItem]{Preview: o.previewOne, Apply: o.apply}
	if o.Several && !o.Output.Human() {
		b.Previewed = o.printPlans
	}
	return runBatch(ctx, &o.Writer, o.IOStreams, string(o.Verb), result, b)
}

// previewOne reads the Deployment, previews the verb (pipeline.ActionRun.Preview; resume of
// a Deployment drive holds: previewHeld) and prints the preview: the human form, or with -o
// the RolloutPlan (one Deployment; several are printed together by printPlans).
func (o *ActionOptions) previewOne(ctx context.Context, ref rollout.Object) (*pipeline.ActionItem, error) {
	client, err := o.clientset()
	if err != nil {
		return nil, err
	}
	it, err := o.run().Preview(ctx, client, ref)
	if it == nil || it.Held || err != nil {
		return it, err
	}
	if o.Output.Human() {
		if err := printer.PrintActionPreview(o.Out, it, o.MaxSteps); err != nil {
			return nil, err
		}
	} else if !o.Several {
		p, err := o.Output.ToPrinter()
		if err != nil {
			return nil, err
		}
		if err := p.PrintObj(printer.NewActionPlan(it), o.Out); err != nil {
			return nil, err
		}
	}
	return it, o.Feas.refuse(ref.Name, it.Feasibility)
}

// printPlans prints the plans of several Deployments as one RolloutPlanList (-o).
func (o *ActionOptions) printPlans(items []*pipeline.ActionItem) error {
	p, err := o.Output.ToPrinter()
	if err != nil {
		return err
	}
	return p.PrintObj(printer.NewActionPlanList(items), o.Out)
}

// apply writes one previewed Deployment (nothing for a dry run) and returns kubectl's word;
// a Deployment drive holds is handed back (handBack).
func (o *ActionOptions) apply(ctx context.Context, it *pipeline.ActionItem) (string, error) {
	if it.Held {
		return heldOperation, o.handBack(ctx, it.Client, it.Ref)
	}
	return o.run().Apply(ctx, it)
}

// readiness is the verb's plan readiness (pipeline.ActionReadiness).
func (o *ActionOptions) readiness() pipeline.Readiness {
	return pipeline.ActionReadiness(o.Verb, o.Readiness)
}

// run is the pipeline's action of the flags.
func (o *ActionOptions) run() *pipeline.ActionRun {
	r := &pipeline.ActionRun{Verb: o.Verb, Readiness: o.readiness(), DryRun: o.DryRun, Sink: o.Sink,
		FieldManager: o.FieldManager, Now: o.Now, Held: o.previewHeld}
	if o.Verb != rollout.VerbPause {
		r.Checks = o.Feas.checks()
	}
	return r
}
