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
	_ = cmd.RegisterFlagCompletionFunc("readiness", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return pipeline.ReadinessNames(), cobra.ShellCompDirectiveNoFileComp
	})
}

// validateReadiness checks a --readiness value of a command without the timed model.
func validateReadiness(s string) error { return pipeline.ValidateReadiness(s, false) }

// validateAnyReadiness checks a --readiness value, timed included.
func validateAnyReadiness(s string) error { return pipeline.ValidateReadiness(s, true) }

// Target is the one Deployment a command acts on (the target.Ref its arguments resolve to:
// o.Namespace, o.Name) and the client that reaches it; the commands' Options embed it. A
// command that acts on many (issue 8) holds the []target.Ref of Selection.Resolve instead.
type Target struct {
	target.Ref
	// Client returns the clientset (built lazily, so that offline commands need no kubeconfig).
	Client func() (kubernetes.Interface, error)
}

// load returns the client and the live state of the Deployment (pipeline.LoadState: one GET,
// one LIST, sent again through transient failures). Errors: the client's, or LoadLive's (one
// line naming the object).
func (t *Target) load(ctx context.Context) (kubernetes.Interface, *pipeline.State, error) {
	client, err := t.Client()
	if err != nil {
		return nil, nil, err
	}
	state, err := pipeline.LoadState(ctx, func() (kubernetes.Interface, error) { return client, nil }, "", t.Namespace, t.Name, false)
	if err != nil {
		return nil, nil, err
	}
	return client, state, nil
}

// complete resolves args ("deploy/NAME", "NAME" or "deployment NAME", see target.ParseArgs),
// the namespace of -n or the kubeconfig, and the client (f's clientset when client is nil).
// Online the arguments go through target.Selection's resource.Builder (no request is made);
// with a stateFile they are parsed alone, the namespace is the one -n names, or empty ("as the
// file says"), and a kubeconfig is optional.
func (t *Target) complete(f cmdutil.Factory, args []string, stateFile string, client func() (kubernetes.Interface, error)) error {
	sel := &target.Selection{Args: args}
	if err := sel.Validate(); err != nil {
		return err
	}
	if err := completeSelection(f, sel, stateFile); err != nil {
		return err
	}
	refs, err := sel.Resolve(context.Background()) // names: no request
	if err != nil {
		return err
	}
	if len(refs) != 1 {
		return fmt.Errorf("one Deployment at a time: %d selected", len(refs))
	}
	t.Ref = refs[0]
	t.Client = clientsetOf(f, client)
	return nil
}

// completeSelection fills sel's namespace (of -n or the kubeconfig; offline without -n:
// empty, "as the file says") and, online, its builder (target.NewBuilder over f).
func completeSelection(f cmdutil.Factory, sel *target.Selection, stateFile string) error {
	ns, explicit, err := f.ToRawKubeConfigLoader().Namespace()
	if err != nil && stateFile == "" {
		return err
	}
	sel.Namespace, sel.EnforceNamespace = ns, explicit
	if stateFile != "" && !explicit {
		sel.Namespace = ""
	}
	if stateFile == "" {
		sel.Builder = target.NewBuilder(f)
	}
	return nil
}

// clientsetOf returns client, or f's clientset when client is nil.
func clientsetOf(f cmdutil.Factory, client func() (kubernetes.Interface, error)) func() (kubernetes.Interface, error) {
	if client != nil {
		return client
	}
	return func() (kubernetes.Interface, error) { return f.KubernetesClientSet() }
}

// Targets is what a command that acts on many Deployments embeds instead of Target: its
// selection flags (target.Flags, registered with Select.AddFlags), the Selection they and the
// arguments make, and the client. Selection.Bulk() selections are listed by the command
// (Selection.List, or pkg/cluster's fleet read over Selection.Scope()); names resolve with
// Selection.Resolve and no request.
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

// complete builds and validates the Selection of args and the flags (one line naming what is
// wrong and what to do; nothing asked), with the namespace and builder of completeSelection,
// and the client (f's clientset when client is nil).
func (t *Targets) complete(f cmdutil.Factory, args []string, stateFile string, client func() (kubernetes.Interface, error)) error {
	sel, err := t.Select.Selection(args, "", false, nil)
	if err != nil {
		return err
	}
	if err := sel.Validate(); err != nil {
		return err
	}
	if err := completeSelection(f, sel, stateFile); err != nil {
		return err
	}
	t.Selection = sel
	t.Client = clientsetOf(f, client)
	return nil
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
	return Writer{FieldManager: DefaultFieldManager, Many: Many{
		verb: verb, Terminal: stdTerminal(streams), Select: target.NewFlags(target.Choices{Many: true}),
	}}
}

// addFlags registers --dry-run=none|client|server, --field-manager and --yes on cmd.
func (w *Writer) addFlags(cmd *cobra.Command) {
	cmdutil.AddDryRunFlag(cmd)
	cmdutil.AddFieldManagerFlagVar(cmd, &w.FieldManager, DefaultFieldManager)
	w.Many.addFlags(cmd)
}

// Complete resolves the dry-run strategy and the Deployments selected (Many.resolve).
func (w *Writer) Complete(f cmdutil.Factory, cmd *cobra.Command, args []string) error {
	var err error
	if w.DryRun, err = cmdutil.GetDryRunStrategy(cmd); err != nil {
		return err
	}
	t := Targets{Select: w.Select}
	if err := t.complete(f, args, "", nil); err != nil {
		return err
	}
	return w.resolve(t.Selection, t.Client)
}

// validate checks --field-manager.
func (w *Writer) validate() error {
	if w.FieldManager == "" {
		return fmt.Errorf("--field-manager must not be empty")
	}
	return nil
}
