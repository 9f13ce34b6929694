package cmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// options is the shape of every rollplan command, as of kubectl's: Complete resolves the
// environment (namespace, client, arguments), Validate checks the flags alone, Run does the
// work.
type options interface {
	Complete(f cmdutil.Factory, cmd *cobra.Command, args []string) error
	Validate() error
	Run(ctx context.Context) error
}

// runE returns a cobra RunE that runs o's Complete, Validate and Run in turn.
func runE(f cmdutil.Factory, o options) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if err := o.Complete(f, cmd, args); err != nil {
			return err
		}
		if err := o.Validate(); err != nil {
			return err
		}
		return o.Run(cmd.Context())
	}
}

// addReadinessFlag registers --readiness (with completion of its values) on cmd, bound to p.
func addReadinessFlag(cmd *cobra.Command, p *string) {
	cmd.Flags().StringVar(p, "readiness", *p, "When pods become available in the plan: batched (once the controller stops writing), instant (before every next sync), never (new pods never do: where does it stall?) or, for preview, timed (each pod a time after its creation: --pod-ready-after; steps get times and the plan an ETA).")
	_ = cmd.RegisterFlagCompletionFunc("readiness", cobra.FixedCompletions(pipeline.ReadinessNames(), cobra.ShellCompDirectiveNoFileComp))
}

// Target is the one Deployment a command acts on (the target.Ref its arguments resolve to:
// o.Namespace, o.Name) and the client that reaches it; the commands' Options embed it.
type Target struct {
	target.Ref
	// Client returns the clientset (built lazily, so that offline commands need no kubeconfig).
	Client func() (kubernetes.Interface, error)
}

// complete resolves args and the namespace (pipeline.CompleteOne) and the client (f's
// clientset when client is nil).
func (t *Target) complete(f cmdutil.Factory, args []string, stateFile string, client func() (kubernetes.Interface, error)) (err error) {
	t.Ref, err = pipeline.CompleteOne(f, args, stateFile)
	t.Client = pipeline.ClientsetOf(f, client)
	return err
}

// Targets is what a command that acts on many Deployments embeds instead of Target: its
// selection flags (target.Flags, registered with Select.AddFlags), the Selection they and the
// arguments make (read by Targets.load), and the client.
type Targets struct {
	Select    *target.Flags
	Selection *target.Selection
	// Client returns the clientset (built lazily, so that offline commands need no kubeconfig).
	Client func() (kubernetes.Interface, error)
}

// newTargets returns Targets whose flags are those choices selects.
func newTargets(choices target.Choices) Targets {
	return Targets{Select: target.NewFlags(choices)}
}

// complete builds the Selection of args and the flags (pipeline.CompleteMany) and the client
// (f's clientset when client is nil).
func (t *Targets) complete(f cmdutil.Factory, args []string, stateFile string, client func() (kubernetes.Interface, error)) (err error) {
	t.Selection, err = pipeline.CompleteMany(f, t.Select, args, stateFile)
	t.Client = pipeline.ClientsetOf(f, client)
	return err
}

// Writer is what the commands that write Deployments add to Target: the selection of many
// (Many: several names, -l, --all, --yes), kubectl's --dry-run and --field-manager,
// registered and checked in one place.
type Writer struct {
	Target
	Many
	DryRun       cmdutil.DryRunStrategy
	FieldManager string
}

// newWriter returns a Writer of verb ("undo", "restart") with the default field manager,
// asking (several Deployments) on streams when they are a terminal.
func newWriter(verb string, streams genericiooptions.IOStreams) Writer {
	return Writer{FieldManager: pipeline.FieldManager, Many: Many{
		verb: verb, Terminal: stdTerminal(streams), Select: target.NewFlags(target.Choices{Many: true}),
	}}
}

// addFlags registers --dry-run=none|client|server, --field-manager and --yes on cmd.
func (w *Writer) addFlags(cmd *cobra.Command) {
	cmdutil.AddDryRunFlag(cmd)
	cmdutil.AddFieldManagerFlagVar(cmd, &w.FieldManager, pipeline.FieldManager)
	w.Many.addFlags(cmd)
}

// Complete resolves the dry-run strategy and the Deployments selected (Many.resolve).
func (w *Writer) Complete(f cmdutil.Factory, cmd *cobra.Command, args []string) (err error) {
	if w.DryRun, err = cmdutil.GetDryRunStrategy(cmd); err != nil {
		return err
	}
	sel, err := pipeline.CompleteMany(f, w.Select, args, "")
	if err != nil {
		return err
	}
	return w.resolve(sel, pipeline.ClientsetOf(f, nil))
}

// validate checks --field-manager.
func (w *Writer) validate() error {
	if w.FieldManager == "" {
		return fmt.Errorf("--field-manager must not be empty")
	}
	return nil
}
