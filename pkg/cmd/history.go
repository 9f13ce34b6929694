package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubectl/pkg/util/templates"
	"k8s.io/utils/exec"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
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

// HistoryOptions holds the flags and dependencies of "kubectl rollplan history".
type HistoryOptions struct {
	Revision  int64
	Diff      bool
	DiffFrom  int64 // 0: the previous revision
	DiffTo    int64 // 0: the current revision
	StateFile string
	Output    *printer.OutputFlags

	Target
	// Fleet is the selection of many Deployments (several names, -l, --all, -A): one
	// section each; when it selects one by name, Target is that one.
	Fleet Targets
	// Contexts are --contexts and --all-contexts (history_contexts.go).
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
	return &HistoryOptions{
		Output:    printer.NewOutputFlags(),
		Fleet:     newTargets(readOnlyFleet),
		Now:       time.Now,
		Exec:      exec.New(),
		Getenv:    os.Getenv,
		IOStreams: streams,
	}
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

// Complete resolves the Deployment's name, the two revisions of --diff A B, the namespace and
// the client.
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
	if o.Diff && len(args) >= 3 {
		a, errA := strconv.ParseInt(args[len(args)-2], 10, 64)
		b, errB := strconv.ParseInt(args[len(args)-1], 10, 64)
		if errA == nil && errB == nil {
			if a <= 0 || b <= 0 {
				return fmt.Errorf("--diff %d %d: revisions are positive numbers", a, b)
			}
			o.DiffFrom, o.DiffTo = a, b
			args = args[:len(args)-2]
		}
	}
	if err := o.Fleet.completeFleet(f, args, o.StateFile); err != nil {
		return err
	}
	if o.Fleet.many() {
		return nil
	}
	return o.Target.complete(f, args, o.StateFile, nil)
}

// Validate checks the flags.
func (o *HistoryOptions) Validate() error {
	if o.Revision < 0 {
		return fmt.Errorf("--revision %d: revisions are positive numbers", o.Revision)
	}
	if o.Revision > 0 && o.Diff {
		return errors.New("--revision and --diff do not go together: use --diff A B")
	}
	if o.Diff && !o.Output.Human() {
		return errors.New("--diff prints a text diff: drop -o")
	}
	if (o.Fleet.many() || o.Contexts.many()) && (o.Revision > 0 || o.Diff) {
		return errors.New("--revision and --diff show one Deployment's revisions: name one Deployment")
	}
	if !o.Output.Human() {
		if _, err := o.Output.ToPrinter(); err != nil {
			return err
		}
	}
	return nil
}

// Run reads the Deployment and its ReplicaSets and prints the history, a revision or a diff.
func (o *HistoryOptions) Run(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if o.Contexts.many() {
		return o.runContexts(ctx)
	}
	if o.Fleet.many() {
		return o.runFleet(ctx)
	}
	state, err := loadState(ctx, o.Client, o.StateFile, o.Namespace, o.Name, false)
	if err != nil {
		return err
	}
	h := rollout.BuildHistory(state.Deployment, state.ReplicaSets)
	if o.Revision > 0 && h.Find(o.Revision) == nil {
		return pipeline.RevisionError(h, o.Revision)
	}
	switch {
	case o.Diff:
		return o.printDiff(h, state.Deployment)
	case !o.Output.Human():
		p, err := o.Output.ToPrinter()
		if err != nil {
			return err
		}
		return p.PrintObj(printer.NewRolloutHistory(h, o.Revision), o.Out)
	case o.Revision > 0:
		return printer.PrintRevision(o.Out, h, o.Revision)
	default:
		return printer.PrintHistory(o.Out, h, o.Now())
	}
}

func (o *HistoryOptions) printDiff(h *rollout.History, d *appsv1.Deployment) error {
	from, to, err := pipeline.DiffSides(h, d, o.DiffFrom, o.DiffTo)
	if err != nil {
		return err
	}
	if env := o.Getenv("KUBECTL_EXTERNAL_DIFF"); env != "" {
		return pipeline.ExternalDiff(o.Exec, env, o.Namespace, o.Name, from, to, o.Out, o.ErrOut)
	}
	return printer.PrintTemplateDiff(o.Out, from.Label, to.Label, rollout.UnifiedDiff(from.Label, to.Label, from.YAML, to.YAML))
}
