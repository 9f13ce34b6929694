package cmd

import (
	"context"
	"fmt"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"time"

	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
)

// DefaultFieldManager is the field manager rollplan's writes are recorded under.
const DefaultFieldManager = "kubectl-rollplan"

// dryRunSuffix is what kubectl appends to its result line for a dry run
// (cmdutil.PrintFlagsWithDryRunStrategy).
func dryRunSuffix(s cmdutil.DryRunStrategy) string {
	switch s {
	case cmdutil.DryRunClient:
		return " (dry run)"
	case cmdutil.DryRunServer:
		return " (server dry run)"
	}
	return ""
}

// sendPatch sends a guarded patch to the Deployment, as a dry run (dryRun=All) when
// serverDryRun, and returns the Deployment the server answered with. A patch refused because
// the Deployment changed after the preview (a failed JSON patch test, or a 409 Conflict on
// the resourceVersion precondition) is reported as such: nothing was written.
func sendPatch(ctx context.Context, client kubernetes.Interface, d *appsv1.Deployment, p *rollout.Patch, serverDryRun bool, fieldManager string) (*appsv1.Deployment, error) {
	opts := metav1.PatchOptions{FieldManager: fieldManager}
	if serverDryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	body := p.Guarded
	if body == nil {
		body = p.Kubectl
	}
	// The controller updates the Deployment's status (a new resourceVersion) at any moment of
	// a rollout. A guard that failed on such an update alone is renewed: spec, labels and
	// annotations are still what was previewed, so the preview still holds.
	for attempt := 0; ; attempt++ {
		got, err := client.AppsV1().Deployments(d.Namespace).Patch(ctx, d.Name, p.Type, body, opts)
		if err == nil {
			got.APIVersion, got.Kind = appsv1.SchemeGroupVersion.String(), "Deployment"
			return got, nil
		}
		if p.Guarded == nil || attempt == 3 || !(apierrors.IsConflict(err) || apierrors.IsInvalid(err)) {
			return nil, patchError(ctx, client, d, p, err)
		}
		now, gerr := client.AppsV1().Deployments(d.Namespace).Get(ctx, d.Name, metav1.GetOptions{})
		if gerr != nil || now.ResourceVersion == p.ResourceVersion || !onlyStatusMoved(d, now) {
			return nil, patchError(ctx, client, d, p, err)
		}
		renewed, rerr := reguard(p, now.ResourceVersion)
		if rerr != nil {
			return nil, patchError(ctx, client, d, p, err)
		}
		body = renewed
	}
}

// onlyStatusMoved reports whether now differs from the previewed d in status (and
// resourceVersion) alone.
func onlyStatusMoved(d, now *appsv1.Deployment) bool {
	return now.Generation == d.Generation &&
		apiequality.Semantic.DeepEqual(now.Spec, d.Spec) &&
		apiequality.Semantic.DeepEqual(now.Labels, d.Labels) &&
		apiequality.Semantic.DeepEqual(now.Annotations, d.Annotations)
}

// reguard guards kubectl's patch body with resourceVersion rv instead.
func reguard(p *rollout.Patch, rv string) ([]byte, error) {
	if p.Type == types.JSONPatchType {
		return rollout.GuardJSONPatch(p.Kubectl, rv)
	}
	return rollout.GuardMergePatch(p.Kubectl, rv)
}

// patchError turns a failed patch into one line that says what happened and what to do.
func patchError(ctx context.Context, client kubernetes.Interface, d *appsv1.Deployment, p *rollout.Patch, err error) error {
	what := fmt.Sprintf("patch deployments.apps %q in namespace %q", d.Name, d.Namespace)
	changed := apierrors.IsConflict(err)
	if !changed && p.Type == types.JSONPatchType && apierrors.IsInvalid(err) {
		// A failed `test` operation is a bare 422 without details: look whether the
		// Deployment moved on.
		if now, gerr := client.AppsV1().Deployments(d.Namespace).Get(ctx, d.Name, metav1.GetOptions{}); gerr == nil && now.ResourceVersion != p.ResourceVersion {
			changed = true
		}
	}
	switch {
	case changed:
		return fmt.Errorf("%s: the Deployment changed after the preview (it was at resourceVersion %s): nothing was written; run the command again to preview the new state", what, p.ResourceVersion)
	case apierrors.IsForbidden(err):
		return fmt.Errorf("%s: forbidden: you need permission to patch deployments.apps in namespace %q (check with `kubectl auth can-i patch deployments.apps -n %s`): %v", what, d.Namespace, d.Namespace, err)
	case apierrors.IsNotFound(err):
		return fmt.Errorf("%s: the Deployment was deleted after the preview: %v", what, err)
	default:
		return fmt.Errorf("%s: %w", what, err)
	}
}

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
	// Now is the clock restart's restartedAt comes from.
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
	client, err := o.Client()
	if err != nil {
		return err
	}
	state, err := cluster.LoadLive(ctx, client, o.Namespace, o.Name)
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
		server, err := sendPatch(ctx, client, state.Deployment, a.Patch, true, o.FieldManager)
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
		fmt.Fprintln(o.Out)
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
		if _, err := sendPatch(ctx, client, state.Deployment, a.Patch, false, o.FieldManager); err != nil {
			return err
		}
	}
	_, err = fmt.Fprintf(result, "deployment.apps/%s %s%s\n", o.Name, o.Verb.Past(), dryRunSuffix(o.DryRun))
	return err
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
