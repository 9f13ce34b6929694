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
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// AbortOptions holds the flags of "kubectl rollplan abort".
type AbortOptions struct {
	Yes             bool
	Interval        time.Duration
	ProgressTimeout time.Duration
	LeaseDuration   time.Duration
	Force           bool
	DryRun          bool
	// Select holds -l/--selector and --all, registered hidden only to be refused in one line.
	Select *target.Flags

	Target
	Now      func() time.Time
	Terminal func() bool
	genericiooptions.IOStreams
}

// NewAbortOptions returns AbortOptions with drive's defaults (lease duration, clock, terminal
// check).
func NewAbortOptions(streams genericiooptions.IOStreams) *AbortOptions {
	return &AbortOptions{
		LeaseDuration: defaultLeaseDuration,
		Select:        target.NewFlags(target.Choices{OneOnly: "abort works on one Deployment per run"}),
		Now:           time.Now,
		Terminal:      stdTerminal(streams),
		IOStreams:     streams,
	}
}

// NewCmdAbort returns "kubectl rollplan abort".
func NewCmdAbort(f cmdutil.Factory, streams genericiooptions.IOStreams) *cobra.Command {
	o := NewAbortOptions(streams)
	cmd := &cobra.Command{
		Use:                   "abort (deploy/NAME | NAME) [--yes]",
		DisableFlagsInUseLine: true,
		Short:                 "Walk a Deployment held by drive back to its previous ReplicaSet, and hand it back",
		Long: templates.LongDesc(`
			Walk a Deployment that drive holds back to the ReplicaSet it ran before the drive,
			step by step with the same bounds (previous pods up first, wait until available,
			then the new pods down), and hand it back to the controller with the previous
			template and the original strategy restored. No pod of the previous version is
			removed that was not replaced first. The previous ReplicaSet becomes the newest
			revision, as after kubectl rollout undo.`),
		Example: templates.Examples(`
			kubectl rollplan abort deploy/web
			kubectl rollplan abort web --yes`),
		RunE: runE(f, o),
	}
	fl := cmd.Flags()
	fl.BoolVarP(&o.Yes, "yes", "y", false, "Do not ask before each step.")
	fl.DurationVar(&o.Interval, "interval", 0, "Bake time between two steps.")
	fl.DurationVar(&o.ProgressTimeout, "progress-timeout", 0, "How long a step may wait for its pods before abort holds and reports them (default: progressDeadlineSeconds).")
	fl.DurationVar(&o.LeaseDuration, "lease-duration", o.LeaseDuration, "How long the lease lasts without renewal.")
	fl.BoolVar(&o.Force, "force", false, "Take the lease of a driver that holds it (it then stops).")
	fl.BoolVar(&o.DryRun, "dry-run", false, "Print the walk-back plan and change nothing.")
	o.Select.AddFlags(cmd)
	return cmd
}

// Complete resolves the namespace, the Deployment's name and the client (drive's).
func (o *AbortOptions) Complete(f cmdutil.Factory, _ *cobra.Command, args []string) error {
	if _, err := o.Select.Selection(args, "", false, nil); err != nil {
		return err
	}
	return o.Target.complete(f, args, "", driveClient(f))
}

// Validate checks the flags alone (pure): --lease-duration, as drive does.
func (o *AbortOptions) Validate() error {
	return driverun.ValidateLeaseDuration(o.LeaseDuration)
}

// Run prints the walk-back plan (driverun.Prepare with Abort) and walks it.
func (o *AbortOptions) Run(ctx context.Context) error {
	ctx, stop := signalContext(ctx)
	defer stop()
	cs, err := o.Client()
	if err != nil {
		return err
	}
	confirm, err := confirmStep(o.IOStreams, o.Terminal, "abort", "pass --yes", o.Yes || o.DryRun)
	if err != nil {
		return err
	}
	p, err := driverun.Prepare(ctx, driverun.Config{Options: drive.Options{
		Client: cs, Namespace: o.Namespace, Name: o.Name, Abort: true, Force: o.Force,
		Interval: o.Interval, ProgressTimeout: o.ProgressTimeout, LeaseDuration: o.LeaseDuration,
		Progress: printer.NewDriveProgress(o.ErrOut, o.Terminal()).Event, Now: o.Now, Confirm: confirm,
	}})
	if err != nil {
		return err
	}
	if err := printer.PrintDrivePreparation(o.Out, o.ErrOut, p); err != nil {
		return err
	}
	if o.DryRun {
		return printer.PrintDryRunEnd(o.Out, false)
	}
	out, err := p.Run(ctx)
	return finishDrive(o.IOStreams, out, err)
}
