package cmd

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubectl/pkg/util/templates"

	"github.com/rollplan/kubectl-rollplan/pkg/drive"
	"github.com/rollplan/kubectl-rollplan/pkg/driverun"
	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

var (
	driveLong = templates.LongDesc(`
		Walk a Deployment's rollout step by step from the client, with the Deployment
		controller still running: new pods up first, wait until they are available, then old
		pods down, never above replicas+maxSurge pods (one more when maxSurge is 0) and never
		below replicas-maxUnavailable available pods.

		drive takes the rollout over in one guarded write (spec.paused true, strategy
		Recreate, the new template, its state in the annotation rollplan.dev/drive), creates
		the new ReplicaSet and scales ReplicaSets with guarded patches, and hands the
		Deployment back to the controller at the end in one guarded write, complete, with its
		original strategy. The state lives in the cluster: run drive again, from any machine,
		to continue a held Deployment. On a terminal it asks before each step (continue, hold,
		abort); --yes does not ask.

		Exit codes: 0 handed back complete (or nothing done), 1 error (an edit by someone
		else stops the drive and leaves the Deployment held), 3 with --fail-on-stall when the
		feasibility checks predict the plan stalls (before any write), 4 held (--steps,
		--until-step, a hold answer, a step that timed out, --fail-fast).

		Before the takeover, preview's feasibility checks (--checks: quota, capacity, pdb, hpa)
		run on the plan: their FINDINGS and a "Stalled at step k" line print under it, numbered
		by drive's steps. A predicted stall is a warning (drive goes on and holds there) unless
		--fail-on-stall.

		When a step's pods do not become available, drive says why, one line per reason with
		its pod count (FailedCreate, Unschedulable, ImagePullBackOff, CrashLoopBackOff, a
		failing readiness probe, a lost node). --fail-fast holds (exit 4) as soon as such a
		reason has lasted --fail-fast-after, instead of waiting for --progress-timeout.

		drive sts/NAME walks a StatefulSet (RollingUpdate, ordinals from 0) through its
		partition instead: the change (--image, --restart) with the partition at replicas
		in one guarded write, then the partition lowered by --step every time the pods above
		it run the update revision and are available (--interval between steps), until 0.
		Exit 4 at a --pause-after ordinal or when a step fails or passes --timeout; run drive
		sts/NAME again (without change flags) to go on, or drive abort sts/NAME to roll back.`)

	driveExample = templates.Examples(`
		# Roll out a new image, confirming every step
		kubectl rollplan drive deploy/web --image web=nginx:1.19

		# The plan, and where it differs from the controller's, without changing anything
		kubectl rollplan drive deploy/web --image web=nginx:1.19 --dry-run

		# Unattended, 2 minutes of bake time between steps, then hold after step 2
		kubectl rollplan drive deploy/web -f web.yaml --yes --interval 2m --until-step 2

		# Continue a held Deployment (from any machine), one step at a time
		kubectl rollplan drive deploy/web --steps 1

		# A StatefulSet, two pods per step, pausing once ordinal 4 and up are replaced
		kubectl rollplan drive sts/db --image db=postgres:16 --step 2 --pause-after 4

		# Who holds it, at which step, with what counts
		kubectl rollplan drive status deploy/web`)
)

// DriveOptions holds the flags and dependencies of "kubectl rollplan drive".
type DriveOptions struct {
	Change          ChangeFlags
	Yes             bool
	Interval        time.Duration
	Steps           int
	UntilStep       int
	ProgressTimeout time.Duration
	FailFast        bool
	FailFastAfter   time.Duration
	LeaseDuration   time.Duration
	Adopt           bool
	Force           bool
	DryRun          cmdutil.DryRunStrategy
	// Checks is --checks (the feasibility checks run on the plan before the takeover);
	// FailOnStall is --fail-on-stall (exit 3 before any write when they predict a stall).
	Checks      string
	FailOnStall bool

	Target
	// one registers -l/--selector and --all only to refuse them, and several names: drive
	// works on one Deployment per run.
	one *target.Flags
	// Now is the clock; Terminal says whether stdin and stderr are a terminal (prompts and
	// the live progress line).
	Now      func() time.Time
	Terminal func() bool

	genericiooptions.IOStreams
}

// NewDriveOptions returns DriveOptions with defaults.
func NewDriveOptions(streams genericiooptions.IOStreams) *DriveOptions {
	return &DriveOptions{
		DryRun:        cmdutil.DryRunNone,
		LeaseDuration: defaultLeaseDuration,
		FailFastAfter: DefaultFailFastAfter,
		Checks:        "all",
		Now:           time.Now,
		Terminal:      stdTerminal(streams),
		IOStreams:     streams,
	}
}

// NewCmdDrive returns "kubectl rollplan drive" with its "status" subcommand.
func NewCmdDrive(f cmdutil.Factory, streams genericiooptions.IOStreams) *cobra.Command {
	return newCmdDrive(f, nil, streams)
}

// newCmdDrive is NewCmdDrive whose "drive status" --contexts reach the contexts of kc.
func newCmdDrive(f cmdutil.Factory, kc *pipeline.Kubeconfig, streams genericiooptions.IOStreams) *cobra.Command {
	o := NewDriveOptions(streams)
	cmd := &cobra.Command{
		Use:                   "drive (deploy/NAME | NAME) [--image CONTAINER=IMAGE] [-f FILE] [--replicas N] [--to-revision N] [--restart] [--yes] [--steps N | --until-step K] [--fail-fast [--fail-fast-after D]] | drive sts/NAME [--image CONTAINER=IMAGE | --restart] [--step N|P%] [--interval D] [--pause-after ORDINALS] [--timeout D]",
		DisableFlagsInUseLine: true,
		Short:                 "Walk a Deployment's rollout step by step from the client",
		Long:                  driveLong,
		Example:               driveExample,
	}
	sts := &stsFlags{}
	deploy := runE(f, o)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		ref, ok, err := driverun.StsArg(args, "drive")
		switch {
		case err != nil:
			return err
		case ok:
			return runDriveSts(f, cmd, o, sts, ref)
		}
		if n := changedAmong(cmd, stsOnly); n != "" {
			return fmt.Errorf("--%s is a flag of drive sts/NAME; for a Deployment use --steps, --until-step and --progress-timeout", n)
		}
		return deploy(cmd, args)
	}
	sts.addFlags(cmd)
	o.Change.AddFlags(cmd)
	fl := cmd.Flags()
	fl.BoolVarP(&o.Yes, "yes", "y", false, "Do not ask before each step.")
	fl.DurationVar(&o.Interval, "interval", 0, "Bake time between two steps (for example 2m).")
	fl.IntVar(&o.Steps, "steps", 0, "Make this many steps, then hold the rollout (exit code 4).")
	fl.IntVar(&o.UntilStep, "until-step", 0, "Hold the rollout once step K is done (exit code 4).")
	fl.DurationVar(&o.ProgressTimeout, "progress-timeout", 0, "How long a step may wait for its pods before drive holds and reports them (default: the Deployment's progressDeadlineSeconds).")
	addFailFastFlags(cmd, &o.FailFast, &o.FailFastAfter)
	fl.Lookup("fail-fast").Usage = "Hold the rollout (exit code 4) as soon as the pods a step waits for have been held back (ImagePullBackOff, CrashLoopBackOff, Unschedulable, FailedCreate, a failing readiness probe, a lost node) for --fail-fast-after, instead of waiting for --progress-timeout."
	fl.DurationVar(&o.LeaseDuration, "lease-duration", o.LeaseDuration, "How long the lease in the Deployment's annotation lasts without renewal; another driver may take over after it (renewed every third of it).")
	fl.BoolVar(&o.Adopt, "adopt", false, "Take over a rollout in flight that drive did not start.")
	fl.BoolVar(&o.Force, "force", false, "Take the lease of a driver that holds it (use when that driver is gone).")
	addDriveDryRunFlag(cmd)
	addDriveCheckFlags(cmd, o)
	o.one = target.NewFlags(target.Choices{OneOnly: "drive works on one Deployment per run"})
	o.one.AddFlags(cmd)
	cmd.AddCommand(newCmdDriveStatus(f, kc, streams), newCmdDriveAbort(f, streams))
	return cmd
}

// Complete resolves --dry-run, the namespace, the Deployment's name and the client.
func (o *DriveOptions) Complete(f cmdutil.Factory, cmd *cobra.Command, args []string) error {
	var err error
	if o.DryRun, err = driverun.ParseDryRun(cmdutil.GetFlagString(cmd, "dry-run")); err != nil {
		return err
	}
	if o.one != nil {
		if _, err := o.one.Selection(args, "", false, nil); err != nil {
			return err
		}
	}
	return o.Target.complete(f, args, "", driveClient(f))
}

// driveClient returns a clientset whose client-side rate limit (QPS 50, burst 100) does not
// delay a step: a step makes about ten requests (reads, guarded writes, Events), and the
// default of 5 per second added hundreds of milliseconds to each.
func driveClient(f cmdutil.Factory) func() (kubernetes.Interface, error) {
	return func() (kubernetes.Interface, error) {
		cfg, err := f.ToRESTConfig()
		if err != nil {
			return nil, err
		}
		cfg.QPS, cfg.Burst = 50, 100
		return kubernetes.NewForConfig(cfg)
	}
}

// Validate checks the flags alone (pure). --steps and --until-step are 1 or more, or 0 (their
// default) for no limit.
func (o *DriveOptions) Validate() error {
	if err := driverun.ValidateWalk(o.Steps, o.UntilStep, o.Interval, o.ProgressTimeout, o.LeaseDuration); err != nil {
		return err
	}
	if err := pipeline.ValidateFailFastAfter(o.FailFastAfter); err != nil {
		return err
	}
	if _, err := feasibility.ParseChecks(o.Checks); err != nil {
		return err
	}
	return o.Change.Validate()
}

// Run prepares the drive (driverun.Prepare), prints its plan and, unless dry-run, walks it.
func (o *DriveOptions) Run(ctx context.Context) error {
	ctx, stop := signalContext(ctx)
	defer stop()
	cs, err := o.Client()
	if err != nil {
		return err
	}
	confirm, err := confirmStep(o.IOStreams, o.Terminal, "drive", "pass --yes to drive without asking (--steps or --until-step still hold where you say)", o.Yes || o.DryRun != cmdutil.DryRunNone)
	if err != nil {
		return err
	}
	p, err := driverun.Prepare(ctx, driverun.Config{
		Options: drive.Options{
			Client: cs, Namespace: o.Namespace, Name: o.Name, Adopt: o.Adopt, Force: o.Force, Steps: o.Steps, UntilStep: o.UntilStep,
			Interval: o.Interval, ProgressTimeout: o.ProgressTimeout, LeaseDuration: o.LeaseDuration,
			FailFast: o.FailFast, FailFastAfter: o.FailFastAfter, Progress: printer.NewDriveProgress(o.ErrOut, o.Terminal()).Event, Now: o.Now, Confirm: confirm,
		},
		Change: &o.Change, Rereadable: o.Change.Filename != "-", In: o.In, DryRun: o.DryRun, Checks: o.Checks, FailOnStall: o.FailOnStall,
	})
	if perr := printer.PrintDrivePreparation(o.Out, o.ErrOut, p); perr != nil {
		return perr
	}
	if err != nil || p.Nothing != nil {
		return err
	}
	if err := exitCode(p.Exit()); err != nil {
		return err
	}
	if o.DryRun != cmdutil.DryRunNone {
		r, err := p.DryRun(ctx)
		if perr := printer.PrintDriveDryRun(o.Out, r); perr != nil {
			return perr
		}
		return err
	}
	out, err := p.Run(ctx)
	return finishDrive(o.IOStreams, out, err)
}

// finishDrive prints the outcome of a drive or abort walk on streams and returns its exit.
func finishDrive(streams genericiooptions.IOStreams, out *driverun.Outcome, err error) error {
	if err != nil {
		return err
	}
	if err := printer.PrintDriveOutcome(streams.Out, streams.ErrOut, out); err != nil {
		return err
	}
	return exitCode(out.Exit())
}

// exitCode turns a result's exit decision into the command's error (nil for 0).
func exitCode(code int, msg string) error {
	if code == 0 {
		return nil
	}
	return NewExitError(code, msg)
}

// signalContext is ctx (Background when nil) canceled on Ctrl-C or SIGTERM: drive and abort
// then stop between writes and leave the Deployment held.
func signalContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if ctx == nil {
		ctx = context.Background()
	}
	return signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
}

// confirmStep is the prompt before each step (printer.PromptStep on streams), nil when yes (no
// prompt). Errors: standard input is not a terminal, so verb cannot ask: hint.
func confirmStep(streams genericiooptions.IOStreams, terminal func() bool, verb, hint string, yes bool) (func(context.Context, drive.StepInfo) (drive.Answer, error), error) {
	switch {
	case yes:
		return nil, nil
	case !terminal():
		return nil, fmt.Errorf("standard input is not a terminal, so %s cannot ask before each step: %s", verb, hint)
	}
	return printer.PromptStep(streams.In, streams.ErrOut), nil
}
