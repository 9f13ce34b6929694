package cmd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubectl/pkg/util/templates"

	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
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
	Adopt         bool
	Yes           bool
	MaxConcurrent int
	Timeout       time.Duration
	Readiness     string
	MaxSteps      int
	Drive         bool
	// DriveFlags are drive's flags that --drive passes on (--interval, --progress-timeout,
	// --lease-duration).
	DriveFlags reloadDriveFlags
	DryRun     cmdutil.DryRunStrategy
	// Watch are the flags of the watch mode (pkg/reloadcontroller).
	Watch reloadcontroller.WatchFlags
	// Output is -o: a RolloutPlanList of the assessed Deployments (reload_output.go).
	Output *printer.OutputFlags
	// Checks is --checks: the feasibility checks run on each restart's plan
	// (reload_feasibility.go).
	Checks string
	// Contexts are --contexts and --all-contexts (reload_contexts.go): several only show.
	Contexts ContextFlags

	FieldManager string
	// Targets are the selection flags (names, -l, --all, -A, --chunk-size), the Selection
	// and the client.
	Targets
	// Namespace is -n's (or the context's): the watch mode's.
	Namespace string
	// KindArgs are the StatefulSets and DaemonSets the arguments name (target.ParseKindArgs;
	// then no Deployment is selected); kindsNamespace is -n's (or the context's) for them.
	KindArgs       target.KindArgs
	kindsNamespace string
	// WatchArgs are the arguments given with --watch (refused: it takes none).
	WatchArgs []string
	Now       func() time.Time
	Terminal  func() bool
	cmd       *cobra.Command

	genericiooptions.IOStreams
}

// reloadDriveFlags are the drive flags --drive honours.
type reloadDriveFlags struct {
	Interval        time.Duration
	ProgressTimeout time.Duration
	LeaseDuration   time.Duration
}

// NewReloadOptions returns ReloadOptions with defaults.
func NewReloadOptions(streams genericiooptions.IOStreams) *ReloadOptions {
	return &ReloadOptions{
		Targets:       newTargets(target.Choices{Many: true, AllNamespaces: true}),
		MaxConcurrent: 1,
		Timeout:       10 * time.Minute,
		Readiness:     reloadoneshot.DefaultReadiness,
		MaxSteps:      40,
		Output:        newReloadOutputFlags(),
		Checks:        "all",
		DriveFlags:    reloadDriveFlags{LeaseDuration: defaultLeaseDuration},
		FieldManager:  DefaultReloadFieldManager,
		Now:           time.Now,
		Terminal:      stdTerminal(streams),
		IOStreams:     streams,
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
	fl := cmd.Flags()
	o.Select.AddFlags(cmd)
	fl.BoolVar(&o.Adopt, "adopt", false, "Record the current checksums of Deployments seen for the first time (annotation rollplan.dev/adopted-config-checksums on the Deployment) without restarting anything.")
	fl.BoolVarP(&o.Yes, "yes", "y", false, "Do not ask for confirmation.")
	fl.IntVar(&o.MaxConcurrent, "max-concurrent", o.MaxConcurrent, "How many restarts roll out at once; each is waited for until complete before the next starts.")
	fl.DurationVar(&o.Timeout, "timeout", o.Timeout, "How long to wait for one restart's rollout to complete; after a timeout no further restart starts.")
	fl.IntVar(&o.MaxSteps, "max-steps", o.MaxSteps, "Rows of each plan's step table; the middle of a longer plan is elided (0: all).")
	fl.BoolVar(&o.Drive, "drive", false, "Walk each restart step by step with drive (see `kubectl rollplan drive --help`; --interval, --progress-timeout and --lease-duration apply).")
	fl.DurationVar(&o.DriveFlags.Interval, "interval", 0, "With --drive: bake time between two steps (for example 2m).")
	fl.DurationVar(&o.DriveFlags.ProgressTimeout, "progress-timeout", 0, "With --drive: how long a step may wait for its pods (default: the Deployment's progressDeadlineSeconds).")
	fl.DurationVar(&o.DriveFlags.LeaseDuration, "lease-duration", o.DriveFlags.LeaseDuration, "With --drive: how long drive's lease lasts without renewal.")
	addReadinessFlag(cmd, &o.Readiness)
	fl.StringVar(&o.Checks, "checks", o.Checks, "Feasibility checks run on each restart's plan: a comma-separated list of quota, capacity, pdb, hpa, or all, or none.")
	cmdutil.AddDryRunFlag(cmd)
	cmdutil.AddFieldManagerFlagVar(cmd, &o.FieldManager, DefaultReloadFieldManager)
	o.Watch.AddFlags(cmd)
	o.Output.AddFlags(cmd)
	if kc != nil {
		o.Contexts.addFlags(cmd,
			"Show what reload would restart in each of these contexts of the kubeconfig (comma-separated, in this order), read at the same time: a CONTEXT column leads the table and each plan of -o carries its context. Nothing is written: with more than one context --yes, --watch and --dry-run=server are refused. A context that cannot be read is one error line; the others are still printed (exit code 1).",
			"Show what reload would restart in every context of the kubeconfig, as --contexts does.")
	}
	return cmd
}

// Complete resolves the dry-run strategy, the namespace, the names and the client.
func (o *ReloadOptions) Complete(f cmdutil.Factory, cmd *cobra.Command, args []string) error {
	var err error
	if o.DryRun, err = cmdutil.GetDryRunStrategy(cmd); err != nil {
		return err
	}
	o.cmd = cmd
	if err := o.Contexts.resolve(cmd); err != nil {
		return err
	}
	if err := o.validateContexts(); err != nil {
		return err
	}
	if o.Client == nil {
		o.Client = driveClient(f)
	}
	if o.Watch.Watch {
		o.WatchArgs = args
		o.Namespace, _, err = f.ToRawKubeConfigLoader().Namespace()
		return err
	}
	ns, _, err := f.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return err
	}
	o.kindsNamespace = ns
	bulk := o.Select.All || o.Select.Selector != "" || o.Select.AllNamespaces
	ka, named, err := target.ParseKindArgs(args, bulk)
	if err != nil {
		return err
	}
	if named {
		// StatefulSets and DaemonSets named: the Deployment selection stays empty.
		o.KindArgs = ka
		for i := range o.KindArgs.Refs {
			o.KindArgs.Refs[i].Namespace = ns
		}
		switch {
		case len(ka.Refs) > 0 && (o.Select.Selector != "" || o.Select.All):
			return errors.New("name cannot be provided when a selector is specified: give names, or -l/--selector or --all, not both")
		case len(ka.Refs) > 0 && o.Select.AllNamespaces:
			return errors.New("a resource cannot be retrieved by name across all namespaces: drop -A/--all-namespaces and give the namespace with -n")
		case len(ka.Refs) > 0:
			return nil // no Deployment selected: o.Selection stays nil
		}
		return o.Targets.complete(f, nil, "", o.Client)
	}
	return o.Targets.complete(f, args, "", o.Client)
}

// Validate checks the flags alone.
func (o *ReloadOptions) Validate() error {
	if o.Watch.Watch {
		return o.validateWatch()
	}
	if o.cmd != nil {
		if err := o.Watch.Validate(o.cmd, nil); err != nil {
			return err
		}
	}
	switch {
	case o.MaxConcurrent < 1:
		return fmt.Errorf("--max-concurrent=%d: must be 1 or more", o.MaxConcurrent)
	case o.Timeout <= 0:
		return fmt.Errorf("--timeout=%s: must be more than 0", o.Timeout)
	case o.Drive && o.Adopt:
		return errors.New("--drive and --adopt: --adopt restarts nothing, give one of them")
	case o.Drive && o.MaxConcurrent > 1:
		return errors.New("--drive walks one restart at a time: drop --max-concurrent")
	case o.DriveFlags.Interval < 0 || o.DriveFlags.ProgressTimeout < 0:
		return errors.New("--interval and --progress-timeout must not be negative")
	case o.FieldManager == "":
		return errors.New("--field-manager must not be empty")
	}
	if err := validateLeaseDuration(o.DriveFlags.LeaseDuration); err != nil {
		return err
	}
	if err := o.validateOutput(); err != nil {
		return err
	}
	if _, err := feasibility.ParseChecks(o.Checks); err != nil {
		return err
	}
	return validateReadiness(o.Readiness)
}

// validateWatch checks the flags of --watch: the watch mode's, and none of the one-shot's.
func (o *ReloadOptions) validateWatch() error {
	switch {
	case o.MaxConcurrent < 1:
		return fmt.Errorf("--max-concurrent=%d: must be 1 or more", o.MaxConcurrent)
	case o.Timeout <= 0:
		return fmt.Errorf("--timeout=%s: must be more than 0", o.Timeout)
	case o.Select.All || o.Adopt || o.Drive || o.Yes || o.DryRun != cmdutil.DryRunNone:
		return errors.New("--watch restarts every opted-in Deployment of the namespace by itself: --all, --adopt, --drive, --yes and --dry-run are for one run without --watch")
	case !o.Output.Human():
		return errors.New("-o: --watch prints one line per restart; -o prints the plans of one run without --watch")
	case o.FieldManager == "":
		return errors.New("--field-manager must not be empty")
	case o.cmd == nil:
		return nil
	}
	return o.Watch.Validate(o.cmd, o.WatchArgs)
}

// Run reads and assesses the selected Deployments, prints the table and the restart plans,
// asks (on a terminal, without --yes), then restarts them paced. With --watch it runs the
// watch mode until interrupted.
func (o *ReloadOptions) Run(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if o.Contexts.many() {
		return o.runContexts(ctx)
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
	return o.runOnce(ctx, client)
}

// config is the reloadoneshot.Config of the flags (a one-shot run).
func (o *ReloadOptions) config(client kubernetes.Interface) *reloadoneshot.Config {
	c := &reloadoneshot.Config{
		Selection: o.Selection, KindArgs: o.KindArgs, KindsNamespace: o.kindsNamespace,
		Bulk: o.Select.All || o.Select.Selector != "" || o.Select.AllNamespaces, AllNamespaces: o.Select.AllNamespaces, Selector: o.Select.Selector,
		Adopt: o.Adopt, Readiness: o.Readiness, Checks: o.Checks,
		MaxConcurrent: o.MaxConcurrent, Timeout: o.Timeout, FieldManager: o.FieldManager,
		ClientDryRun: o.DryRun == cmdutil.DryRunClient, ServerDryRun: o.DryRun == cmdutil.DryRunServer,
		Progress: o.ErrOut, Now: o.Now,
	}
	if o.Drive {
		c.Drive = o.driveRestart(client)
	}
	return c
}

// runOnce is the one-shot run over the selected Deployments, then StatefulSets and
// DaemonSets (reloadoneshot.Config): one assessment printed, one refusal check, one
// question, then the writes (Deployments paced by --max-concurrent, then the other kinds
// one at a time).
func (o *ReloadOptions) runOnce(ctx context.Context, client kubernetes.Interface) error {
	c := o.config(client)
	a, err := c.Assess(ctx, client)
	if err != nil {
		return err
	}
	if err := o.printAssessment(c, a); err != nil {
		return err
	}
	if err := a.Refusal(); err != nil {
		return err
	}
	// With -o, stdout holds the RolloutPlanList alone: the result lines go to stderr.
	result := o.Out
	if !o.Output.Human() {
		result = o.ErrOut
	}
	n := a.Writes()
	if n == 0 {
		fmt.Fprintln(result, "\nNothing to restart.")
		return nil
	}
	suffix := printer.DryRunSuffix(o.DryRun)
	if o.DryRun == cmdutil.DryRunClient {
		fmt.Fprintln(result)
		printer.PrintReloadResults(result, a.DryRunResults(), suffix)
		printer.PrintReloadKindResults(result, c.WriteKinds(ctx, client, a), suffix)
		return nil
	}
	if o.DryRun == cmdutil.DryRunNone {
		ok, err := o.confirm(n, a.KindWrites() > 0)
		if err != nil {
			return err
		}
		if !ok {
			fmt.Fprintln(o.ErrOut, "Not confirmed: nothing was written.")
			return nil
		}
	}
	results := c.Restart(ctx, client, a)
	fmt.Fprintln(result)
	errs := printer.PrintReloadResults(result, results, suffix)
	errs = append(errs, printer.PrintReloadKindResults(result, c.WriteKinds(ctx, client, a), suffix)...)
	return utilerrors.NewAggregate(errs)
}

// confirm asks once for all n writes on a terminal; without one, --yes is required. With
// StatefulSets or DaemonSets to write (kinds) the question counts "workload(s)".
func (o *ReloadOptions) confirm(n int, kinds bool) (bool, error) {
	if o.Yes {
		return true, nil
	}
	if !o.Terminal() {
		return false, errors.New("standard input is not a terminal, so reload cannot ask for confirmation: pass --yes to write without asking (or --dry-run=client to only look)")
	}
	verb := "restart"
	if o.Adopt {
		verb = "record the checksums of"
	}
	noun := "deployment(s)"
	if kinds {
		noun = "workload(s)"
	}
	return askYes(o.In, o.ErrOut, fmt.Sprintf("\n%s %d %s? [y/N]: ", verb, n, noun)), nil
}
