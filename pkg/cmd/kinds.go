package cmd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// KindsOptions are the flags and dependencies of history, undo, restart, pause, resume and
// status when their arguments name StatefulSets or DaemonSets (issue 21). The Deployment
// commands are untouched: kindsRunE routes here only for "sts/NAME", "ds NAME", "sts -l ..."
// and kubectl's other forms of those two kinds.
type KindsOptions struct {
	Verb string
	Args target.KindArgs

	Selector      string
	All           bool
	AllNamespaces bool
	Output        string
	DryRun        cmdutil.DryRunStrategy
	FieldManager  string
	// Sink receives undo's and restart's patches (nil: pipeline.NewSink of DryRun and
	// FieldManager).
	Sink       pipeline.Sink
	Yes        bool
	ToRevision int64
	Revision   int64
	Watch      bool
	Timeout    time.Duration

	// Change, Readiness, StateFile and ExplicitNamespace are preview's (completePreview).
	Change            pipeline.KindChange
	Readiness         pipeline.Readiness
	StateFile         string
	ExplicitNamespace bool
	// Checks are preview's --checks (parsed) and FailOnStall its --fail-on-stall.
	Checks      []string
	FailOnStall bool
	// StatusConfig is status's (completeStatus).
	StatusConfig pipeline.KindStatusConfig
	// Contexts are preview's --contexts and --all-contexts (nil for the other verbs).
	Contexts *ContextFlags

	// Namespace is -n or the kubeconfig's; Client reaches the cluster; Now is the clock;
	// Terminal says whether stdin and stderr are a terminal (the one confirmation).
	Namespace string
	Client    func() (kubernetes.Interface, error)
	Now       func() time.Time
	Terminal  func() bool

	genericiooptions.IOStreams
}

// kindsRunE returns a cobra RunE that runs verb for StatefulSets and DaemonSets when the
// arguments name one of those kinds (target.ParseKindArgs), and next, the Deployment
// command as it always was, otherwise.
func kindsRunE(f cmdutil.Factory, streams genericiooptions.IOStreams, verb string, next func(*cobra.Command, []string) error) func(*cobra.Command, []string) error {
	return kindsRunEContexts(f, streams, verb, next, nil)
}

// kindsRunEContexts is kindsRunE whose verb also reads --contexts/--all-contexts (preview).
func kindsRunEContexts(f cmdutil.Factory, streams genericiooptions.IOStreams, verb string, next func(*cobra.Command, []string) error, contexts *ContextFlags) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		fl := cmd.Flags()
		bulk := flagString(fl, "selector") != "" || flagBool(fl, "all") || flagBool(fl, "all-namespaces")
		ka, ok, err := target.ParseKindArgs(args, bulk)
		if !ok {
			return next(cmd, args)
		}
		if err != nil {
			return err
		}
		if contexts == nil && (fl.Changed("contexts") || fl.Changed("all-contexts")) {
			return fmt.Errorf("%s of StatefulSets and DaemonSets reads one context: drop --contexts/--all-contexts and give --context", verb)
		}
		o := &KindsOptions{Verb: verb, Args: ka, Now: time.Now, Terminal: stdTerminal(streams), Contexts: contexts, IOStreams: streams}
		if err := o.complete(f, cmd); err != nil {
			return err
		}
		if err := o.Validate(); err != nil {
			return err
		}
		if verb == "preview" {
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			return o.previewKinds(ctx, cmd)
		}
		return o.Run(cmd.Context())
	}
}

// complete reads the flags the verb's command has (those it lacks stay zero), the namespace
// and the client.
func (o *KindsOptions) complete(f cmdutil.Factory, cmd *cobra.Command) error {
	fl := cmd.Flags()
	o.Selector = flagString(fl, "selector")
	o.All = flagBool(fl, "all")
	o.AllNamespaces = flagBool(fl, "all-namespaces")
	o.Output = flagString(fl, "output")
	o.FieldManager = flagString(fl, "field-manager")
	o.Yes = flagBool(fl, "yes")
	o.ToRevision = flagInt64(fl, "to-revision")
	o.Revision = flagInt64(fl, "revision")
	o.Watch = flagBool(fl, "watch")
	if d, err := fl.GetDuration("timeout"); err == nil {
		o.Timeout = d
	}
	if fl.Lookup("dry-run") != nil {
		var err error
		if o.DryRun, err = cmdutil.GetDryRunStrategy(cmd); err != nil {
			return err
		}
	}
	if o.Verb == "preview" {
		if err := o.completePreview(fl); err != nil {
			return err
		}
	}
	if o.Verb == "status" {
		if err := o.completeStatus(fl); err != nil {
			return err
		}
	}
	for _, name := range []string{"diff", "state-file", "patch-only", "template"} {
		if fl.Changed(name) && (o.Verb != "preview" || name != "state-file") {
			return fmt.Errorf("--%s works on Deployments only: drop it for StatefulSets and DaemonSets", name)
		}
	}
	ns, _, err := f.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return err
	}
	o.Namespace = ns
	o.Client = func() (kubernetes.Interface, error) { return f.KubernetesClientSet() }
	return nil
}

func flagString(fl *pflag.FlagSet, name string) string {
	if f := fl.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}

func flagBool(fl *pflag.FlagSet, name string) bool {
	v, err := fl.GetBool(name)
	return err == nil && v
}

func flagInt64(fl *pflag.FlagSet, name string) int64 {
	v, _ := fl.GetInt64(name)
	return v
}

// Validate checks the selection and flags alone, with kubectl's words for the combinations
// it refuses.
func (o *KindsOptions) Validate() error {
	named := len(o.Args.Refs) > 0
	switch {
	case named && (o.Selector != "" || o.All):
		return errors.New("name cannot be provided when a selector is specified: give names, or -l/--selector or --all, not both")
	case named && o.AllNamespaces:
		return errors.New("a resource cannot be retrieved by name across all namespaces: drop -A/--all-namespaces and give the namespace with -n")
	case o.Selector != "" && o.All:
		return errors.New("setting 'all' parameter but found a non empty selector: give -l/--selector or --all, not both")
	case !named && o.Selector == "" && !o.All && !o.AllNamespaces:
		return fmt.Errorf("a %s is required: give %s/NAME, several names, -l/--selector or --all", o.Args.Kind, o.Args.Kind.Resource())
	}
	if o.Selector != "" {
		if _, err := labels.Parse(o.Selector); err != nil {
			return fmt.Errorf("the provided selector %q is not valid: %v", o.Selector, err)
		}
	}
	switch o.Output {
	case "", "json", "yaml":
	default:
		return fmt.Errorf("unknown output format %q: use -o json or -o yaml for StatefulSets and DaemonSets", o.Output)
	}
	if o.Verb == "preview" {
		if err := o.validatePreview(); err != nil {
			return err
		}
	}
	if o.Revision < 0 {
		return fmt.Errorf("--revision %d: revisions are positive numbers", o.Revision)
	}
	if o.Timeout < 0 {
		return fmt.Errorf("--timeout %s: must be 0 (never) or more", o.Timeout)
	}
	if o.Timeout > 0 && !o.Watch {
		return errors.New("--timeout needs --watch")
	}
	return nil
}

// refs resolves the selection (pipeline.SelectKindRefs): the names in the namespace, or one
// LIST of the kind with -l, --all or -A.
func (o *KindsOptions) refs(ctx context.Context, client kubernetes.Interface) ([]target.KindRef, error) {
	return pipeline.SelectKindRefs(ctx, client, o.Args, o.Namespace, o.AllNamespaces, o.Selector)
}

// noun names the selection's kind in the plural (pipeline.KindsNoun).
func (o *KindsOptions) noun() string { return pipeline.KindsNoun(o.Args) }

// several reports whether the selection is not one object named.
func (o *KindsOptions) several() bool { return len(o.Args.Refs) != 1 }

// Run runs the verb on every object selected; for several, a failure is named on stderr and
// the others go on, and the error names each that failed.
func (o *KindsOptions) Run(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if o.Verb == "pause" || o.Verb == "resume" {
		return o.refuse()
	}
	client, err := o.Client()
	if err != nil {
		return err
	}
	if (o.Verb == "undo" || o.Verb == "restart") && o.several() && o.DryRun == cmdutil.DryRunNone && !o.Yes && !o.Terminal() {
		return fmt.Errorf("standard input is not a terminal, so %s cannot ask before changing several %s: pass --yes to %s them without asking, or --dry-run=client to preview only", o.Verb, o.noun(), o.Verb)
	}
	refs, err := o.refs(ctx, client)
	if err != nil {
		return err
	}
	if len(refs) == 0 {
		printer.PrintNoneSelected(o.ErrOut, o.Namespace)
		return nil
	}
	switch o.Verb {
	case "history":
		return o.each(refs, func(r target.KindRef) error { return o.history(ctx, client, r) })
	case "status":
		return o.status(ctx, client, refs)
	default:
		return o.write(ctx, client, refs)
	}
}

// each runs fn on every ref; with several, a failure is printed and the rest go on.
func (o *KindsOptions) each(refs []target.KindRef, fn func(target.KindRef) error) error {
	if !o.several() && len(refs) == 1 {
		return fn(refs[0])
	}
	var failed []string
	for _, r := range refs {
		if err := fn(r); err != nil {
			fmt.Fprintf(o.ErrOut, "error: %s (namespace %s): %v\n", r, r.Namespace, err)
			failed = append(failed, r.String())
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("%s failed for %d of %d: %v", o.Verb, len(failed), len(refs), failed)
	}
	return nil
}

// refuse is kubectl's answer to pause and resume of these kinds, before anything is read.
func (o *KindsOptions) refuse() error { return pipeline.RefuseKinds(o.Verb, o.Args) }

// history prints one object's history (pipeline.ReadKindHistory; -o: a WorkloadHistory).
func (o *KindsOptions) history(ctx context.Context, client kubernetes.Interface, ref target.KindRef) error {
	h, err := pipeline.ReadKindHistory(ctx, client, ref, o.Revision)
	if err != nil {
		return err
	}
	switch {
	case o.Output != "":
		return printYAMLOrJSON(o.Out, o.Output, printer.NewWorkloadHistory(h, o.Revision))
	case o.Revision > 0:
		return printer.PrintWorkloadRevision(o.Out, h, o.Revision)
	default:
		return printer.PrintWorkloadHistory(o.Out, h, o.Now())
	}
}
