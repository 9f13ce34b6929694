package cmd

import (
	"cmp"
	"context"
	"errors"
	"os"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubectl/pkg/util/templates"
	"k8s.io/utils/exec"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
)

var (
	historyLong = templates.LongDesc(`
		Show a Deployment's revisions: one row per ReplicaSet with its revision, name,
		pod-template-hash, images, ready/replicas, age and change-cause, the current one marked
		with "*".

		Beyond 'kubectl rollout history' it shows the numbers a rollback took from a revision
		(deployment.kubernetes.io/revision-history), tags a revision whose template differs
		from the previous one only by kubectl.kubernetes.io/restartedAt as a restart, and
		forecasts which revisions revisionHistoryLimit deletes when the next rollout completes
		(after that, 'kubectl rollout undo --to-revision' cannot return to them).

		--revision N prints that revision's pod template as kubectl does; --diff prints a
		unified diff of two revisions' templates (default: the previous revision against the
		current one) with the program in KUBECTL_EXTERNAL_DIFF if it is set, as 'kubectl
		diff' does.

		StatefulSets and DaemonSets (sts/NAME, ds/NAME, or the type with -l/--all) have their history
		from their ControllerRevisions: the pods running each revision, the revision the template
		is, and what revisionHistoryLimit deletes next
		(docs/statefulsets-daemonsets.md).`)

	historyExample = templates.Examples(`
		# Every revision, with restarts, renumbered revisions and the cleanup forecast
		kubectl rollplan history deploy/web

		# The pod template of revision 3
		kubectl rollplan history deploy/web --revision 3

		# What changed from the previous revision to the current one? From 2 to 5?
		kubectl rollplan history deploy/web --diff
		kubectl rollplan history deploy/web --diff 2 5

		# Machine-readable (kind RolloutHistory, apiVersion rollplan.dev/v1alpha1)
		kubectl rollplan history deploy/web -o json`)
)

// HistoryOptions holds the flags (pipeline.HistoryConfig) and dependencies of "kubectl
// rollplan history".
type HistoryOptions struct {
	pipeline.HistoryConfig
	Output *printer.OutputFlags

	Target
	// Fleet is the selection of many Deployments (several names, -l, --all, -A): one
	// section each; when it selects one by name, Target is that one.
	Fleet Targets
	// Contexts are --contexts and --all-contexts.
	Contexts ContextFlags
	// Now is the clock AGE is computed from; Exec runs KUBECTL_EXTERNAL_DIFF; Getenv reads
	// the environment.
	Now    func() time.Time
	Exec   exec.Interface
	Getenv func(string) string

	genericiooptions.IOStreams
}

// NewHistoryOptions returns HistoryOptions with defaults.
func NewHistoryOptions(streams genericiooptions.IOStreams) *HistoryOptions {
	return &HistoryOptions{Output: printer.NewOutputFlags(), Fleet: newTargets(readOnlyFleet), Now: time.Now,
		Exec: exec.New(), Getenv: os.Getenv, IOStreams: streams}
}

// NewCmdHistory returns "kubectl rollplan history" (without --contexts: it needs the root's
// connection flags).
func NewCmdHistory(f cmdutil.Factory, streams genericiooptions.IOStreams) *cobra.Command {
	return newCmdHistory(f, nil, streams)
}

// newCmdHistory is NewCmdHistory whose --contexts reach the contexts of kc.
func newCmdHistory(f cmdutil.Factory, kc *pipeline.Kubeconfig, streams genericiooptions.IOStreams) *cobra.Command {
	o := NewHistoryOptions(streams)
	o.Contexts.Kubeconfig = kc
	cmd := &cobra.Command{
		Use:                   "history (deploy/NAME | NAME) [NAME ...] [-l SELECTOR | --all | -A] [--revision N] [--diff [A B]] [-o json|yaml]",
		DisableFlagsInUseLine: true,
		Short:                 "Show a Deployment's revisions, restarts, renumbered revisions and what cleanup deletes next",
		Long:                  historyLong,
		Example:               historyExample,
		RunE:                  kindsRunE(f, streams, "history", runE(f, o)),
	}
	cmd.Flags().Int64Var(&o.Revision, "revision", 0, "Print the pod template of this revision.")
	cmd.Flags().BoolVar(&o.Diff, "diff", false, "Print a unified diff of two revisions' pod templates: --diff A B, or --diff alone for the previous revision against the current one. Uses KUBECTL_EXTERNAL_DIFF when set.")
	cmd.Flags().StringVar(&o.StateFile, "state-file", "", "Read the Deployment and ReplicaSets from this file ('kubectl get deploy,rs -o yaml|json') instead of the cluster.")
	o.Output.HumanForm = "the human-readable history"
	o.Output.AddFlags(cmd)
	o.Fleet.Select.AddFlags(cmd)
	if kc != nil {
		o.Contexts.addFlags(cmd,
			"Show the history in each of these contexts of the kubeconfig (comma-separated, in this order), read at the same time: each section is headed by its context and each item of -o carries it. A context that cannot be read is one error line; the others are still printed (exit code 1).",
			"Show the history in every context of the kubeconfig, as --contexts does.")
	}
	_ = cmd.MarkFlagFilename("state-file", "yaml", "yml", "json")
	return cmd
}

// Complete resolves the contexts, the two revisions of --diff A B, the selection, the
// Deployment's name and namespace and the client.
func (o *HistoryOptions) Complete(f cmdutil.Factory, cmd *cobra.Command, args []string) error {
	if o.Contexts.given() && o.StateFile != "" {
		return errors.New("--state-file is one cluster's state: drop --contexts/--all-contexts, or --state-file")
	}
	if err := o.Contexts.resolve(cmd); err != nil {
		return err
	}
	if o.Contexts.many() {
		return o.Fleet.complete(f, args, "", nil)
	}
	args, err := o.ParseDiffArgs(args)
	if err != nil {
		return err
	}
	if err := o.Fleet.completeFleet(f, args, o.StateFile); err != nil || o.Fleet.many() {
		return err
	}
	return o.Target.complete(f, args, o.StateFile, nil)
}

// Validate checks the flags (pipeline.HistoryConfig.Validate) and -o.
func (o *HistoryOptions) Validate() error {
	if err := o.HistoryConfig.Validate(o.Fleet.many() || o.Contexts.many(), o.Output.Human()); err != nil {
		return err
	}
	_, err := o.Output.HumanOrPrinter()
	return err
}

// Run reads the history of the Deployment (pipeline.HistoryConfig.ReadHistory) and prints it
// (printer.PrintHistoryResult; --diff through KUBECTL_EXTERNAL_DIFF when set), or runMany's.
func (o *HistoryOptions) Run(ctx context.Context) error {
	p, err := o.Output.HumanOrPrinter()
	if err != nil {
		return err
	}
	if o.Fleet.many() || o.Contexts.many() {
		return o.runMany(ctx, p)
	}
	r, err := o.ReadHistory(ctx, o.Client, o.Namespace, o.Name)
	if err != nil {
		return err
	}
	if env := o.Getenv("KUBECTL_EXTERNAL_DIFF"); o.Diff && env != "" {
		return pipeline.ExternalDiff(o.Exec, env, o.Namespace, o.Name, r.From, r.To, o.Out, o.ErrOut)
	}
	return printer.PrintHistoryResult(o.Out, p, r, o.Revision, o.Diff, o.Now())
}

// runMany reads the history of the selection (pipeline.HistoryFleet) or of the selection in
// every context (pipeline.HistoryContexts) and prints it (printer.PrintFleetHistory). Exit 1
// when a Deployment (naming them) or a context failed.
func (o *HistoryOptions) runMany(ctx context.Context, p printers.ResourcePrinter) error {
	sel := o.Fleet.Selection
	var r pipeline.FleetHistory
	var err error
	if o.Contexts.many() {
		srcs, errs := o.Contexts.sources()
		r, err = pipeline.HistoryContexts(ctx, sel, o.Contexts.resolved, srcs, errs)
	} else {
		r, err = pipeline.HistoryFleet(ctx, sel, o.Fleet.Client, o.StateFile)
	}
	if err != nil {
		return err
	}
	names, failedContexts, err := printer.PrintFleetHistory(o.Out, o.ErrOut, p, r, o.Now(), sel.AllNamespaces, printer.NoneFound(sel.Scope().Namespace))
	if err == nil && len(names) == 0 && failedContexts > 0 {
		return NewExitError(ExitError, "")
	}
	return cmp.Or(err, fleetExit(names, 0, false))
}
