package cmd

import (
	"context"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/kube"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
)

// DefaultFieldManager is the field manager rollplan's writes are recorded under
// (kube.FieldManager).
const DefaultFieldManager = kube.FieldManager

// ActionOptions holds the flags and dependencies of "kubectl rollplan pause", "resume" and
// "restart".
type ActionOptions struct {
	Verb      rollout.Verb
	Readiness string
	MaxSteps  int
	// Output prints the plan that follows as a RolloutPlan (json, yaml, ...) instead of the
	// human preview; kubectl's result line then goes to stderr.
	Output *printer.OutputFlags

	Writer
	// Now is the clock: restart's restartedAt, and resume's view and hand-back of a Deployment
	// held by drive.
	Now func() time.Time

	genericiooptions.IOStreams
}

// NewActionOptions returns ActionOptions for verb with defaults.
func NewActionOptions(verb rollout.Verb, streams genericiooptions.IOStreams) *ActionOptions {
	return &ActionOptions{
		Verb:      verb,
		Writer:    newWriter(),
		Readiness: string(planner.ReadinessBatched),
		MaxSteps:  40,
		Output:    printer.NewOutputFlags(),
		Now:       time.Now,
		IOStreams: streams,
	}
}

// newActionCommand builds the cobra command of a pause, resume or restart.
func newActionCommand(f cmdutil.Factory, o *ActionOptions, short, long, example string) *cobra.Command {
	cmd := &cobra.Command{
		Use:                   string(o.Verb) + " (deploy/NAME | NAME) [--dry-run=none|client|server] [-o json|yaml]",
		DisableFlagsInUseLine: true,
		Short:                 short,
		Long:                  long,
		Example:               example,
		RunE:                  runE(f, o),
	}
	o.Writer.addFlags(cmd)
	if o.Verb != rollout.VerbPause {
		addReadinessFlag(cmd, &o.Readiness)
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
	if !o.Output.Human() {
		if _, err := o.Output.ToPrinter(); err != nil {
			return err
		}
	}
	return nil
}

// Run reads the Deployment, previews the change and the controller's plan, and (unless a
// dry run) sends kubectl's patch guarded by the previewed resourceVersion.
func (o *ActionOptions) Run(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	client, state, err := o.load(ctx)
	if err != nil {
		return err
	}
	if held, err := resumeHeld(ctx, o, client, state); held {
		return err
	}
	a, err := o.preview(state)
	if err != nil {
		return err
	}
	if o.DryRun == cmdutil.DryRunServer {
		server, err := rollout.Send(ctx, client, state.Deployment, a.Patch, o.writeOptions(true))
		if err != nil {
			return err
		}
		a.Result = server
		if a.Plan, err = rollout.Plan(server, state.ReplicaSets, o.readiness()); err != nil {
			return err
		}
	}
	result := o.Out
	if o.Output.Human() {
		if err := printer.PrintAction(o.Out, a, printer.PlanOptions{MaxSteps: o.MaxSteps, ChartWidth: 30}); err != nil {
			return err
		}
		printer.PrintNotes(o.Out)
	} else {
		p, err := o.Output.ToPrinter()
		if err != nil {
			return err
		}
		if err := p.PrintObj(printer.NewRolloutPlan(a.Plan, nil), o.Out); err != nil {
			return err
		}
		result = o.ErrOut
	}
	if o.DryRun == cmdutil.DryRunNone {
		if _, err := rollout.Send(ctx, client, state.Deployment, a.Patch, o.writeOptions(false)); err != nil {
			return err
		}
	}
	return printer.PrintResult(result, o.Name, o.Verb.Past(), o.DryRun)
}

func (o *ActionOptions) readiness() planner.Readiness {
	if o.Verb == rollout.VerbPause {
		return planner.ReadinessNever
	}
	return planner.Readiness(o.Readiness)
}

func (o *ActionOptions) preview(state *cluster.State) (*rollout.Action, error) {
	switch o.Verb {
	case rollout.VerbPause:
		return rollout.PreviewPause(state.Deployment, state.ReplicaSets)
	case rollout.VerbResume:
		return rollout.PreviewResume(state.Deployment, state.ReplicaSets, o.readiness())
	default:
		return rollout.PreviewRestart(state.Deployment, state.ReplicaSets, o.Now().Truncate(time.Second), o.readiness())
	}
}
