package cmd

import (
	"context"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubectl/pkg/util/templates"

	"github.com/rollplan/kubectl-rollplan/pkg/drive"
	"github.com/rollplan/kubectl-rollplan/pkg/driverun"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
	"github.com/rollplan/kubectl-rollplan/pkg/reloadcontroller"
	"github.com/rollplan/kubectl-rollplan/pkg/reloadoneshot"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

var (
	reloadLong = templates.LongDesc(`
		Restart the Deployments whose pods run with outdated ConfigMaps or Secrets, after
		showing which references changed and how each restart will roll.

		A Deployment's pods see the ConfigMaps and Secrets its pod template references
		(env keyRefs: that key; envFrom: every key; configMap, secret and projected volumes:
		their items, or every key; initContainers too; not imagePullSecrets). reload
		checksums exactly the keys the pods see (sha256; for a Secret, HMAC keyed with its
		UID) and compares them with the pod template annotation rollplan.dev/config-checksums
		its last restart wrote: a difference is a change. Without that annotation (first
		sight) the time the config's data was last written (its managedFields) is compared
		with the creation of the current ReplicaSet's pods: "possibly stale since T".
		--adopt records the checksums without restarting.

		A restart is one guarded JSON patch of that annotation alone, under the field manager
		rollplan-reload (--field-manager; not "kubectl"-prefixed, so Flux's
		kustomize-controller neither takes it over nor reverts it): the template then depends
		only on the config content, so restoring old config makes the controller reuse the
		old ReplicaSet. Restarts are paced:
		--max-concurrent rollouts at a time, each waited for until complete (--timeout), or
		walked step by step with --drive. A non-optional reference that is missing refuses
		the whole run: nothing is written.

		With -l or --all only opted-in Deployments are selected: the annotation
		rollplan.dev/reload: "true" (also reloader.stakater.com/auto: "true" and
		com.xing.deployment-restart: enabled). Named Deployments need no opt-in.

		StatefulSets and DaemonSets are reloaded the same way: named (sts/NAME, ds/NAME,
		statefulset.apps/NAME, ...; not in one run with Deployments), or opted in with -l,
		--all or -A after the Deployments; one at a time, each waited for until kubectl's
		status viewer says complete (docs/reload-kinds.md).

		With --watch, run as a controller until interrupted (from a laptop, or as a
		Deployment in the cluster: deploy/reload): every opted-in Deployment of the
		namespace (-A: of every namespace; -l narrows) is restarted when the content of a
		ConfigMap or Secret key its pods see changes, --grace-period after the first change
		of a burst, --max-concurrent rollouts at a time, each waited for (--timeout); an
		Event on the Deployment names what changed.`)

	reloadExample = templates.Examples(`
		# Which references of web changed, and how would its restart roll? (nothing changed)
		kubectl rollplan reload deploy/web --dry-run=client

		# Restart every opted-in Deployment of the namespace whose config changed, two at a time
		kubectl rollplan reload --all --max-concurrent 2 --yes

		# A StatefulSet and a DaemonSet: what would restart, without writing
		kubectl rollplan reload sts/db ds/agent --dry-run=client

		# Record the checksums of Deployments seen for the first time, without restarting
		kubectl rollplan reload -l team=payments --adopt --yes

		# Walk each restart step by step, 1 minute of bake time between steps
		kubectl rollplan reload deploy/web --drive --interval 1m

		# As a controller: restart opted-in Deployments of the namespace shop when their config changes
		kubectl rollplan reload --watch -n shop

		# Every namespace, one of several replicas acting, metrics on :8080
		kubectl rollplan reload --watch -A --leader-elect --metrics-bind-address :8080`)
)

// ReloadOptions holds the flags and dependencies of "kubectl rollplan reload".
type ReloadOptions struct {
	// The one-shot run's flags, the watch mode's, --dry-run, -o (a RolloutPlanList), and
	// --contexts/--all-contexts (several only show).
	reloadoneshot.Flags
	Watch    reloadcontroller.WatchFlags
	DryRun   cmdutil.DryRunStrategy
	Output   *printer.OutputFlags
	Contexts ContextFlags
	// Targets are the selection flags (names, -l, --all, -A), the Selection and the client.
	Targets
	// KindArgs are the StatefulSets and DaemonSets the arguments name (then no Deployment
	// is selected); Namespace is -n's (or the context's): theirs and the watch mode's.
	KindArgs  target.KindArgs
	Namespace string
	// WatchArgs are the arguments given with --watch (refused: it takes none).
	WatchArgs []string
	Now       func() time.Time
	Terminal  func() bool
	cmd       *cobra.Command

	genericiooptions.IOStreams
}

// NewReloadOptions returns ReloadOptions with defaults.
func NewReloadOptions(streams genericiooptions.IOStreams) *ReloadOptions {
	return &ReloadOptions{
		Flags:   reloadoneshot.NewFlags(pipeline.ReloadFieldManager, defaultLeaseDuration),
		Targets: newTargets(target.Choices{Many: true, AllNamespaces: true}),
		Output:  printer.NewReloadOutputFlags(), Now: time.Now, Terminal: stdTerminal(streams), IOStreams: streams,
	}
}

// NewCmdReload returns "kubectl rollplan reload" (without --contexts: it needs the root's
// connection flags).
func NewCmdReload(f cmdutil.Factory, streams genericiooptions.IOStreams) *cobra.Command {
	return newCmdReload(f, nil, streams)
}

// newCmdReload is NewCmdReload whose --contexts reach the contexts of kc.
func newCmdReload(f cmdutil.Factory, kc *pipeline.Kubeconfig, streams genericiooptions.IOStreams) *cobra.Command {
	o := NewReloadOptions(streams)
	o.Contexts.Kubeconfig = kc
	cmd := &cobra.Command{
		Use:                   "reload (deploy/NAME ... | sts/NAME ds/NAME ... | -l SELECTOR | --all) [-A] [--dry-run=none|client|server] [--yes] [--max-concurrent N] [--drive] [--adopt] | reload --watch [-n NS | -A] [-l SELECTOR]",
		DisableFlagsInUseLine: true,
		Short:                 "Restart Deployments whose pods run with changed ConfigMaps or Secrets, paced, after showing each restart's plan",
		Long:                  reloadLong,
		Example:               reloadExample,
		RunE:                  runE(f, o),
	}
	o.Select.AddFlags(cmd)
	o.Flags.AddFlags(cmd)
	addReadinessFlag(cmd, &o.Readiness)
	cmdutil.AddDryRunFlag(cmd)
	cmdutil.AddFieldManagerFlagVar(cmd, &o.FieldManager, pipeline.ReloadFieldManager)
	o.Watch.AddFlags(cmd)
	o.Output.AddFlags(cmd)
	if kc != nil {
		o.Contexts.addFlags(cmd,
			"Show what reload would restart in each of these contexts of the kubeconfig (comma-separated, in this order), read at the same time: a CONTEXT column leads the table and each plan of -o carries its context. Nothing is written: with more than one context --yes, --watch and --dry-run=server are refused. A context that cannot be read is one error line; the others are still printed (exit code 1).",
			"Show what reload would restart in every context of the kubeconfig, as --contexts does.")
	}
	return cmd
}

// Complete resolves the dry-run strategy, the contexts, the namespace, the names (of
// Deployments, or of StatefulSets and DaemonSets: reloadoneshot.NamedKinds) and the client.
func (o *ReloadOptions) Complete(f cmdutil.Factory, cmd *cobra.Command, args []string) error {
	var err error
	if o.DryRun, err = cmdutil.GetDryRunStrategy(cmd); err != nil {
		return err
	}
	o.cmd = cmd
	if err := o.Contexts.resolve(cmd); err != nil {
		return err
	}
	if err := o.ValidateContexts(len(o.Contexts.resolved), o.Watch.Watch, o.DryRun == cmdutil.DryRunServer); err != nil {
		return err
	}
	if o.Client == nil {
		o.Client = driveClient(f)
	}
	if o.Namespace, _, err = f.ToRawKubeConfigLoader().Namespace(); err != nil || o.Watch.Watch {
		o.WatchArgs = args
		return err
	}
	var named bool
	o.KindArgs, named, err = reloadoneshot.NamedKinds(args, o.Namespace, o.Select)
	switch {
	case err != nil || len(o.KindArgs.Refs) > 0:
		return err // named StatefulSets or DaemonSets: o.Selection stays nil
	case named:
		args = nil // "sts" with -l/--all/-A: no Deployment name
	}
	return o.Targets.complete(f, args, "", o.Client)
}

// Validate checks the flags alone: the watch mode's (reloadcontroller.WatchFlags) and, with
// --watch, none of the one-shot's; else the one-shot's (reloadoneshot.Flags) and -o's.
func (o *ReloadOptions) Validate() error {
	if o.cmd != nil { // after Complete: which flags were given
		if err := o.Watch.Validate(o.cmd, o.WatchArgs); err != nil {
			return err
		}
	}
	if o.Watch.Watch {
		return o.ValidateWatch(o.Select.All, o.DryRun != cmdutil.DryRunNone, !o.Output.Human())
	}
	if err := o.Flags.Validate(); err != nil {
		return err
	}
	if err := driverun.ValidateLeaseDuration(o.LeaseDuration); err != nil || o.Output.Human() {
		return err
	}
	if _, err := o.Output.ToPrinter(); err != nil {
		return err
	}
	return o.ValidateOutput(o.DryRun != cmdutil.DryRunNone, o.Contexts.many())
}

// Run is one run (reloadoneshot.Config.Run, shown by printer.ReloadRun): the assessment
// printed, one refusal check, one question, then the writes. Across contexts it only shows
// (Config.RunContexts; exit 1 if a context could not be read); with --watch it runs the
// watch mode until interrupted (reloadcontroller.RunWatch).
func (o *ReloadOptions) Run(ctx context.Context) error {
	c, r := o.Flags.Config(o.Selection, o.KindArgs, o.Namespace, o.Select), o.report()
	c.ClientDryRun, c.ServerDryRun, c.Progress, c.Now = o.DryRun == cmdutil.DryRunClient, o.DryRun == cmdutil.DryRunServer, o.ErrOut, o.Now
	if o.Contexts.many() {
		srcs, errs := o.Contexts.sources()
		res, err := c.RunContexts(ctx, o.Contexts.resolved, srcs, errs)
		if err != nil {
			return err
		}
		if err := r.Contexts(c, res); err != nil || len(res.Failed) == 0 {
			return err
		}
		return NewExitError(ExitError, "")
	}
	client, err := o.Client()
	if err != nil {
		return err
	}
	if o.Watch.Watch {
		return reloadcontroller.RunWatch(ctx, client, o.Watch.Config(reloadcontroller.WatchConfig{
			Namespace: o.Namespace, AllNamespaces: o.Select.AllNamespaces, Selector: o.Select.Selector,
			MaxConcurrent: o.MaxConcurrent, Timeout: o.Timeout, FieldManager: o.FieldManager,
			Report: func(r reloadcontroller.Outcome) {
				printer.ReloadWorkloadOutcome(o.Out, string(r.Type), r.Resource, r.Namespace, r.Name, r.Message)
			},
		}), o.ErrOut)
	}
	if o.Drive {
		c.Drive = driverun.Restart(drive.Options{Client: client, Interval: o.Interval, ProgressTimeout: o.ProgressTimeout,
			LeaseDuration: o.LeaseDuration, Now: o.Now, FieldManager: o.FieldManager}, r.DriveWalk(printer.PromptStep(o.In, o.ErrOut)), r.DrivePrepared)
	}
	return c.Run(ctx, client, r)
}

// report is the printer.ReloadRun of the flags, asking on o's streams (printer.AskYes).
func (o *ReloadOptions) report() *printer.ReloadRun {
	return &printer.ReloadRun{Out: o.Out, ErrOut: o.ErrOut, Output: o.Output, MaxSteps: o.MaxSteps, DryRun: o.DryRun,
		Yes: o.Yes, Adopt: o.Adopt, Terminal: o.Terminal, Ask: func(q string) bool { return printer.AskYes(o.In, o.ErrOut, q) }}
}
