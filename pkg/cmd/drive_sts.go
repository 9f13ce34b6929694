package cmd

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubectl/pkg/util/templates"

	"github.com/rollplan/kubectl-rollplan/pkg/drive"
	"github.com/rollplan/kubectl-rollplan/pkg/drive/stsdrive"
	"github.com/rollplan/kubectl-rollplan/pkg/driverun"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// stsFlags are drive's flags for a StatefulSet (issue 21): --step, --pause-after, --timeout,
// -o (the StatefulSetDrive object: the plan, and the result after a run).
type stsFlags struct {
	Step       string
	PauseAfter []int32
	Timeout    time.Duration
	Output     *printer.OutputFlags
}

func (s *stsFlags) addFlags(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&s.Step, "step", "1", "drive sts/NAME: pods replaced per step, N or a percentage of replicas (P%, rounded up, at least 1).")
	fl.Int32SliceVar(&s.PauseAfter, "pause-after", nil, "drive sts/NAME: pause (exit code 4) once the pods down to these ordinals are replaced (canaries); run drive again to go on.")
	fl.DurationVar(&s.Timeout, "timeout", 0, "drive sts/NAME: how long one step may take before drive holds (exit code 4); 0 waits forever.")
	s.Output = printer.NewOutputFlags()
	s.Output.HumanForm = "progress lines (drive sts/NAME only: -o prints the StatefulSetDrive object, its plan and result; progress then goes to stderr)"
	s.Output.AddFlags(cmd)
}

// deploymentOnly are drive's flags that mean nothing to a StatefulSet's walk.
var deploymentOnly = []string{"filename", "replicas", "to-revision", "steps", "until-step", "progress-timeout", "fail-fast", "fail-fast-after", "adopt"}

// stsOnly are the flags only drive sts/NAME reads.
var stsOnly = []string{"step", "pause-after", "timeout", "output", "template"}

// changedAmong returns the first flag of names set on cmd.
func changedAmong(cmd *cobra.Command, names []string) string {
	for _, n := range names {
		if f := cmd.Flags().Lookup(n); f != nil && f.Changed {
			return n
		}
	}
	return ""
}

// runDriveSts is "drive sts/NAME": the flags into driverun.StsConfig, the checks
// (driverun.CheckSts), the walk (driverun.DriveSts), printed by pkg/printer.
func runDriveSts(f cmdutil.Factory, cmd *cobra.Command, o *DriveOptions, s *stsFlags, ref target.KindRef) error {
	if n := changedAmong(cmd, deploymentOnly); n != "" {
		return fmt.Errorf("--%s is a flag of Deployment drive; drive sts/%s takes --image, --restart, --step, --interval, --pause-after, --timeout, --force, --lease-duration, --dry-run and -o", n, ref.Name)
	}
	dryRun, err := driverun.ParseDryRun(cmdutil.GetFlagString(cmd, "dry-run"))
	if err != nil {
		return err
	}
	p, err := s.Output.ObjectPrinter()
	if err != nil {
		return err
	}
	walk, err := driverun.StsWalk(s.Step, s.PauseAfter, s.Timeout, o.Interval, o.LeaseDuration)
	if err != nil {
		return err
	}
	if ref.Namespace, _, err = f.ToRawKubeConfigLoader().Namespace(); err != nil {
		return err
	}
	cs, err := driveClient(f)()
	if err != nil {
		return err
	}
	ctx, stop := signalContext(cmd.Context())
	defer stop()
	progress := o.Out
	if p != nil { // -o: the plan now, the result at the end; progress on stderr
		progress = o.ErrOut
	}
	cfg := driverun.StsConfig{Options: stsdrive.Options{
		Client: cs, Ref: ref,
		Change:   stsdrive.Change{Images: o.Change.Images, Restart: o.Change.Restart},
		Walk:     walk,
		Interval: o.Interval, Progress: printer.StsProgress(progress), Now: o.Now,
		Identity: drive.DefaultIdentity(), Force: o.Force, LeaseDuration: o.LeaseDuration,
	}, DryRun: dryRun, Object: p != nil, Checks: o.Checks, FailOnStall: o.FailOnStall}
	stall, err := driverun.CheckSts(ctx, cfg)
	if err != nil {
		return err
	}
	printer.PrintStsStall(o.ErrOut, stall)
	if err := exitCode(stall.Exit()); err != nil {
		return err
	}
	r, err := driverun.DriveSts(ctx, cfg)
	if perr := printer.PrintStsDrive(o.Out, o.ErrOut, p, r); perr != nil {
		return perr
	}
	if err != nil {
		return err
	}
	return exitCode(r.Exit())
}

// newCmdDriveAbort returns "kubectl rollplan drive abort sts/NAME".
func newCmdDriveAbort(f cmdutil.Factory, streams genericiooptions.IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:                   "abort sts/NAME",
		DisableFlagsInUseLine: true,
		Short:                 "Roll a StatefulSet that drive walks back to its current revision",
		Long: templates.LongDesc(`
			Restore the pod template of the StatefulSet's status.currentRevision (kubectl's
			rollback patch) with the partition at 0, in one guarded write: the controller then
			rolls the updated pods back, highest ordinal first. Pods of the abandoned revision
			that are not Ready are deleted (the StatefulSet "forced rollback": with OrderedReady
			the controller would wait for them forever). It does not wait for the rollback:
			watch it with kubectl rollplan status sts/NAME. For a Deployment use kubectl
			rollplan abort deploy/NAME.`),
		Example: templates.Examples(`
			kubectl rollplan drive abort sts/db`),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, ok, err := driverun.StsArg(args, "drive abort")
			if err != nil {
				return err
			}
			if !ok {
				return fmt.Errorf("drive abort takes sts/NAME; for a Deployment use kubectl rollplan abort deploy/NAME")
			}
			if ref.Namespace, _, err = f.ToRawKubeConfigLoader().Namespace(); err != nil {
				return err
			}
			cs, err := driveClient(f)()
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			res, err := stsdrive.Abort(ctx, cs, ref)
			if res != nil {
				if perr := printer.PrintStsAborted(streams.Out, ref.Namespace, ref.Name, res); perr != nil {
					return perr
				}
			}
			return err
		},
	}
}
