package cmd

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubectl/pkg/util/templates"
	"k8s.io/kubectl/pkg/util/term"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

var (
	statusLong = templates.LongDesc(`
		Show where a Deployment's rollout in flight (the controller's, or kubectl rollplan
		drive's) stands against its plan: step k of n of the whole rollout, every ReplicaSet's
		replicas, ready and available pods, what the controller waits for now, the time since
		the rollout started, and the progress deadline, with a warning once half of
		progressDeadlineSeconds passed without progress.

		--watch follows the rollouts through a watch (no polling): on a terminal the status is
		redrawn in place, otherwise a line is printed per change. It ends as 'kubectl rollout
		status' does: exit 0 once every rollout is complete, 3 when one exceeded its progress
		deadline (ProgressDeadlineExceeded), 5 when --timeout passed first. Without --watch the
		status is printed once (exit 0, or 3 for a rollout that exceeded its deadline).

		While the new ReplicaSet lacks available pods, the status says why, one line per
		reason with its pod count: the ReplicaSet's pod creates refused (FailedCreate: a
		quota, an admission webhook), pods the scheduler cannot place (Unschedulable, with its
		message), container states (ImagePullBackOff, ErrImagePull, CrashLoopBackOff with the
		restart count, CreateContainerConfigError, ...), readiness probes failing (Unhealthy),
		pods lost with their node (NodeLost). --fail-fast exits with code 6 as soon as such a
		reason has lasted --fail-fast-after (default 30s), instead of waiting for the
		Deployment's progressDeadlineSeconds; without --watch it checks once.

		--checks (default all) runs preview's feasibility checks (quota, capacity, pdb, hpa)
		on the remaining plan of each rollout in progress, planned from the live ReplicaSets:
		a predicted stall is a line "Will stall before the next write: ..." (or "after step k
		of the remaining plan"), findings a FINDINGS block, and -o json a field feasibility.
		The checks' objects are read once per command, with --watch too.

		With -l, --all or -A (every namespace), one line per Deployment, with its namespace.

		StatefulSets and DaemonSets (sts/NAME, ds/NAME): kubectl rollout status's verdict, then
		step k of n and what the controller waits for; while the rollout is in progress the
		same reasons (the controller's FailedCreate events, Unschedulable pods, container
		states, probes, lost nodes), the --checks on the remaining plan ("Will stall at the
		controller's next sync: ..."), --fail-fast, and an ETA from preview's timed model.
		-o json|yaml prints a WorkloadStatus.`)

	statusExample = templates.Examples(`
		# Where does the rollout of web stand?
		kubectl rollplan status deploy/web

		# Follow it to the end (exit 0 complete, 3 ProgressDeadlineExceeded, 5 --timeout)
		kubectl rollplan status deploy/web --watch --timeout 10m

		# Follow it, and give up (exit 6, naming why) once its new pods are stuck for 30s
		kubectl rollplan status deploy/web --watch --fail-fast

		# Every Deployment labelled tier=web, one line each, followed
		kubectl rollplan status -l tier=web --watch

		# Every Deployment of the cluster, one line each (namespace/name)
		kubectl rollplan status -A

		# Machine-readable (kind RolloutStatus, apiVersion rollplan.dev/v1alpha1)
		kubectl rollplan status deploy/web -o json

		# A StatefulSet's rollout: verdict, step, why it waits, ETA; followed to the end
		kubectl rollplan status sts/db --watch`)
)

// StatusOptions holds the flags (pipeline.StatusFlags) and dependencies of "kubectl rollplan
// status".
type StatusOptions struct {
	pipeline.StatusFlags
	Output *printer.OutputFlags

	Targets
	// Contexts are --contexts and --all-contexts.
	Contexts ContextFlags
	// Now is the clock; Terminal reports whether Out is a terminal (redraw in place).
	Now      func() time.Time
	Terminal func() bool

	genericiooptions.IOStreams
}

// NewStatusOptions returns StatusOptions with defaults.
func NewStatusOptions(streams genericiooptions.IOStreams) *StatusOptions {
	return &StatusOptions{Output: printer.NewOutputFlags(), Targets: newTargets(target.Choices{Many: true, AllNamespaces: true}),
		StatusFlags: pipeline.StatusFlags{FailFastAfter: DefaultFailFastAfter}, Now: time.Now,
		Terminal: func() bool { return term.TTY{Out: streams.Out}.IsTerminalOut() }, IOStreams: streams}
}

// NewCmdStatus returns "kubectl rollplan status" (without --contexts: it needs the root's
// connection flags).
func NewCmdStatus(f cmdutil.Factory, streams genericiooptions.IOStreams) *cobra.Command {
	return newCmdStatus(f, nil, streams)
}

// newCmdStatus is NewCmdStatus whose --contexts reach the contexts of kc.
func newCmdStatus(f cmdutil.Factory, kc *pipeline.Kubeconfig, streams genericiooptions.IOStreams) *cobra.Command {
	o := NewStatusOptions(streams)
	o.Contexts.Kubeconfig = kc
	cmd := &cobra.Command{
		Use:                   "status (deploy/NAME | NAME) | -l SELECTOR | --all | -A [--watch] [--timeout D] [--fail-fast [--fail-fast-after D]] [-o json|yaml]",
		DisableFlagsInUseLine: true,
		Short:                 "Show where a rollout in flight stands against its plan; --watch follows it",
		Long:                  statusLong,
		Example:               statusExample,
		RunE:                  kindsRunE(f, streams, "status", runE(f, o)),
	}
	cmd.Flags().BoolVarP(&o.Watch, "watch", "w", false, "Follow the rollouts until they are complete or fail (redrawn in place on a terminal, a line per change otherwise).")
	cmd.Flags().DurationVar(&o.Timeout, "timeout", 0, "With --watch, the length of time to wait before giving up (exit 5), zero means never. Any other values should contain a corresponding time unit (e.g. 1s, 2m, 3h).")
	cmd.Flags().StringVar(&o.PodReadyAfter, "pod-ready-after", "", "How long a pod takes from creation to Ready for the ETA (the timed model): a duration (2s) or a range MIN..MAX (1s..4s). Default: measured on each workload's own pods (Deployment, StatefulSet or DaemonSet).")
	cmd.Flags().StringVar(&o.SyncLatency, "sync-latency", "", "The controllers' reaction time per write for the ETA and the steps (the timed model): a duration (500ms). Default: fitted to each Deployment's last rollout when it is complete; with --watch, kept for the next rollout once it starts; else 0.")
	addFailFastFlags(cmd, &o.FailFast, &o.FailFastAfter)
	cmd.Flags().StringVar(&o.Checks, "checks", "all", "Feasibility checks run on the remaining plan of each rollout in progress: a comma-separated list of quota, capacity, pdb, hpa, or all, or none. With --watch their objects are read once.")
	o.Select.AddFlags(cmd)
	o.Output.HumanForm = "the human-readable status"
	o.Output.AddFlags(cmd)
	if kc != nil {
		o.Contexts.addFlags(cmd,
			"Show the status in each of these contexts of the kubeconfig (comma-separated, in this order), read at the same time: a CONTEXT column leads each line and each item of -o carries its context. A context that cannot be read is one error line; the others are still printed (exit code 1). Not with --watch.",
			"Show the status in every context of the kubeconfig, as --contexts does.")
	}
	return cmd
}

// Complete resolves the contexts (--contexts, before any request), the selection, the
// namespace and the client.
func (o *StatusOptions) Complete(f cmdutil.Factory, cmd *cobra.Command, args []string) error {
	if err := o.Contexts.resolve(cmd); err != nil {
		return err
	}
	return o.Targets.complete(f, args, "", nil)
}

// Validate checks the flags (pipeline.StatusFlags.Validate) and -o.
func (o *StatusOptions) Validate() error {
	if err := o.StatusFlags.Validate(o.Contexts.many()); err != nil {
		return err
	}
	_, err := o.Output.HumanOrPrinter()
	return err
}

// Run follows the selected rollouts (pipeline.FollowStatus, shown by printer.StatusShower) or
// reads them once in every context (pipeline.ReadContextsStatus, shown by
// printer.PrintContextStatuses) and returns pipeline.StatusExit's exit: 3 for a rollout past
// its progress deadline, 5 for --timeout, 6 for --fail-fast, 1 for a context not read.
func (o *StatusOptions) Run(ctx context.Context) error {
	cfg, err := o.Config(o.Selection, o.Now)
	if err != nil {
		return err
	}
	p, err := o.Output.HumanOrPrinter()
	if err != nil {
		return err
	}
	if o.Contexts.many() {
		srcs, errs := o.Contexts.sources()
		own := !o.Selection.AllNamespaces && !o.Selection.EnforceNamespace
		results := pipeline.ReadContextsStatus(ctx, o.Contexts.resolved, srcs, errs, cfg, o.Checks, own)
		all, failed, err := printer.PrintContextStatuses(o.Out, o.ErrOut, p, results, len(cfg.Names) == 1, printer.NoneFound(o.Selection.Scope().Namespace))
		return cmp.Or(err, exitOf(pipeline.StatusExit(all, false, 0, o.FailFastAfter, failed)))
	}
	client, err := o.Client()
	if err != nil {
		return err
	}
	show := printer.StatusShower(o.Out, p, o.Watch, o.Terminal, len(cfg.Names) == 1)
	sts, timedOut, err := pipeline.FollowStatus(ctx, client, cfg, o.Checks, show)
	if err != nil {
		return err
	}
	if len(sts) == 0 {
		fmt.Fprintln(o.ErrOut, printer.NoneFound(cfg.Namespace))
		return nil
	}
	return exitOf(pipeline.StatusExit(sts, timedOut, o.Timeout, o.FailFastAfter, 0))
}

// exitOf is the command's error of an exit code and its message (nil for ExitOK).
func exitOf(code int, msg string) error {
	if code == ExitOK {
		return nil
	}
	return NewExitError(code, msg)
}

// DefaultFailFastAfter is --fail-fast-after's default.
const DefaultFailFastAfter = 30 * time.Second

// addFailFastFlags adds --fail-fast and --fail-fast-after (status, drive).
func addFailFastFlags(cmd *cobra.Command, failFast *bool, after *time.Duration) {
	cmd.Flags().BoolVar(failFast, "fail-fast", false, fmt.Sprintf("Exit with code %d as soon as the new ReplicaSet's pods have been held back (ImagePullBackOff, CrashLoopBackOff, Unschedulable, FailedCreate, a failing readiness probe, a lost node) for --fail-fast-after, instead of waiting for progressDeadlineSeconds.", ExitFailFast))
	cmd.Flags().DurationVar(after, "fail-fast-after", DefaultFailFastAfter, "With --fail-fast, how long the new pods must stay held back before giving up (e.g. 30s).")
}
