package cmd

import (
	"context"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
	"github.com/rollplan/kubectl-rollplan/pkg/kube"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
)

// DefaultFieldManager is the field manager rollplan's writes are recorded under
// (kube.FieldManager).
const DefaultFieldManager = kube.FieldManager

// DefaultReloadFieldManager is the field manager of reload's writes (kube.ReloadFieldManager:
// not "kubectl"-prefixed, so Flux does not take its fields over).
const DefaultReloadFieldManager = kube.ReloadFieldManager

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
		Readiness: string(planner.ReadinessBatched),
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
	b := rollout.Batch[*actionItem]{Preview: o.previewOne, Apply: o.apply}
	if o.Several && !o.Output.Human() {
		b.Previewed = o.printPlans
	}
	return runBatch(ctx, &o.Writer, o.IOStreams, string(o.Verb), result, b)
}

// actionItem is one Deployment's previewed pause, resume or restart: the Action, or for
// resume of a Deployment drive holds, the hand-back (held).
type actionItem struct {
	client kubernetes.Interface
	ref    rollout.Object
	state  *cluster.State
	action *rollout.Action
	held   bool
	// feas is the feasibility checks' result on the action's plan (nil: nothing to say).
	feas *feasibility.Result
}

// previewOne reads the Deployment, previews the verb (with --dry-run=server, from the
// Deployment the server returns) and prints the preview: the human form, or with -o the
// RolloutPlan (one Deployment; several are printed together by printPlans).
func (o *ActionOptions) previewOne(ctx context.Context, ref rollout.Object) (*actionItem, error) {
	client, state, err := o.loadObject(ctx, ref)
	if err != nil {
		return nil, err
	}
	it := &actionItem{client: client, ref: ref, state: state}
	if it.held, err = o.previewHeld(state, ref); it.held || err != nil {
		return it, err
	}
	a, err := o.preview(state)
	if err != nil {
		return nil, err
	}
	if o.DryRun == cmdutil.DryRunServer {
		server, err := sinkOf(o.Sink, &o.Writer).Deployment(ctx, client, state.Deployment, a.Patch)
		if err != nil {
			return nil, err
		}
		a.Result = server
		if a.Plan, err = rollout.Plan(server, state.ReplicaSets, o.readiness()); err != nil {
			return nil, err
		}
	}
	if o.Verb != rollout.VerbPause && a.Plan != nil && a.Result != nil {
		if it.feas, a.Plan, err = o.Feas.check(ctx, client, o.readiness(), state, a.Result, a.Plan); err != nil {
			return nil, err
		}
	}
	it.action = a
	if o.Output.Human() {
		if err := printer.PrintAction(o.Out, a, printer.PlanOptions{MaxSteps: o.MaxSteps, ChartWidth: 30}); err != nil {
			return nil, err
		}
		if err := printer.PrintFeasibility(o.Out, it.feas); err != nil {
			return nil, err
		}
		printer.PrintNotes(o.Out)
	} else if !o.Several {
		p, err := o.Output.ToPrinter()
		if err != nil {
			return nil, err
		}
		if err := p.PrintObj(it.plan(), o.Out); err != nil {
			return nil, err
		}
	}
	return it, o.Feas.refuse(ref.Name, it.feas)
}

// plan is the item's RolloutPlan, with the checks' feasibility section.
func (it *actionItem) plan() *v1alpha1.RolloutPlan {
	obj := printer.NewRolloutPlan(it.action.Plan, nil)
	obj.Feasibility = printer.NewPlanFeasibility(it.feas)
	return obj
}

// printPlans prints the plans of several Deployments as one RolloutPlanList (-o).
func (o *ActionOptions) printPlans(items []*actionItem) error {
	p, err := o.Output.ToPrinter()
	if err != nil {
		return err
	}
	var plans []*v1alpha1.RolloutPlan
	for _, it := range items {
		if it.action != nil {
			plans = append(plans, it.plan())
		}
	}
	return p.PrintObj(printer.NewRolloutPlanList(plans), o.Out)
}

// apply writes one previewed Deployment (nothing for a dry run) and returns kubectl's word.
func (o *ActionOptions) apply(ctx context.Context, it *actionItem) (string, error) {
	if it.held {
		return heldOperation, o.handBack(ctx, it.client, it.ref)
	}
	if o.DryRun != cmdutil.DryRunServer { // the server's dry run was the preview's
		if _, err := sinkOf(o.Sink, &o.Writer).Deployment(ctx, it.client, it.state.Deployment, it.action.Patch); err != nil {
			return "", err
		}
	}
	return o.Verb.Past(), nil
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

// sinkOf is s, or when nil the Sink of w's --dry-run and --field-manager.
func sinkOf(s pipeline.Sink, w *Writer) pipeline.Sink {
	if s != nil {
		return s
	}
	return pipeline.NewSink(w.DryRun, w.FieldManager)
}
