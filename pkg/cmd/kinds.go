package cmd

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// KindsOptions are the flags and dependencies of history, undo, restart, pause, resume,
// status and preview when their arguments name StatefulSets or DaemonSets (issue 21): the
// verb's config (pipeline.KindsVerb, which validates and runs it), preview's --contexts and
// --all-contexts (nil for the other verbs), and the streams. The Deployment commands are
// untouched: kindsRunE routes here only for "sts/NAME", "ds NAME", "sts -l ..." and
// kubectl's other forms of those two kinds.
type KindsOptions struct {
	pipeline.KindsVerb
	Contexts *ContextFlags
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
		o := &KindsOptions{KindsVerb: pipeline.KindsVerb{Verb: verb, Args: ka, Now: time.Now, Terminal: stdTerminal(streams)}, Contexts: contexts, IOStreams: streams}
		if err := o.complete(f, cmd); err != nil {
			return err
		}
		if err := o.Validate(); err != nil {
			return err
		}
		if verb == "preview" {
			return o.previewKinds(cmd)
		}
		return o.Run(cmd.Context())
	}
}

// complete reads the flags the verb's command has (those it lacks stay zero), the namespace
// and the client.
func (o *KindsOptions) complete(f cmdutil.Factory, cmd *cobra.Command) error {
	fl := cmd.Flags()
	o.Selector, o.All, o.AllNamespaces = flagString(fl, "selector"), flagBool(fl, "all"), flagBool(fl, "all-namespaces")
	o.Output, o.FieldManager, o.Yes = flagString(fl, "output"), flagString(fl, "field-manager"), flagBool(fl, "yes")
	o.ToRevision, o.Revision, o.Watch = flagInt64(fl, "to-revision"), flagInt64(fl, "revision"), flagBool(fl, "watch")
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
		after, _ := fl.GetDuration("fail-fast-after")
		var err error
		if o.StatusConfig, err = pipeline.ParseKindStatusFlags(flagString(fl, "checks"), flagString(fl, "pod-ready-after"), flagString(fl, "sync-latency"), flagBool(fl, "fail-fast"), after, o.Now); err != nil {
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

// Run runs the verb on every object selected (pipeline.KindsVerb.Run, printed as it goes by
// printer.KindsReport; the one question through printer.AskYes), then prints what is left
// (printer.PrintKindsResult) and exits as the result says.
func (o *KindsOptions) Run(ctx context.Context) error {
	ask := func(q string) bool { return printer.AskYes(o.In, o.ErrOut, q) }
	res, err := o.KindsVerb.Run(ctx, printer.NewKindsReport(o.Out, o.ErrOut, o.KindsVerb, ask))
	if err != nil {
		return err
	}
	if err := printer.PrintKindsResult(o.Out, o.ErrOut, o.KindsVerb, res); err != nil {
		return err
	}
	return kindsExit(res.Exit, res.Message)
}

// kindsExit is the exit error of a verb's exit reason (nil: none).
func kindsExit(e pipeline.KindsExit, msg string) error {
	codes := map[pipeline.KindsExit]int{pipeline.KindsExitStalled: ExitStalled, pipeline.KindsExitTimedOut: ExitTimedOut, pipeline.KindsExitFailFast: ExitFailFast}
	if e == pipeline.KindsExitNone {
		return nil
	}
	return NewExitError(codes[e], msg)
}
