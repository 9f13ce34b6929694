package driverun

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/drive/partition"
	"github.com/rollplan/kubectl-rollplan/pkg/drive/stsdrive"
	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// StsConfig is one run of `drive sts/NAME`: the engine's options (stsdrive.Options: Client,
// Ref, Change, Walk, Interval, Progress, Now, Identity, Force, LeaseDuration) and the flags
// around the walk.
type StsConfig struct {
	stsdrive.Options
	// DryRun is --dry-run: none, client (print the walk) or server (also send its first
	// write with dryRun=All).
	DryRun cmdutil.DryRunStrategy
	// Object is -o: the result carries the StatefulSetDrive object (the plan now, its
	// result once the walk ends).
	Object bool
	// Checks is --checks (a valid value); FailOnStall is --fail-on-stall.
	Checks      string
	FailOnStall bool
}

// StsWalk is the walk of drive sts/NAME's flags (pure): --step (N, 1 or more, or a
// percentage P% of replicas), --pause-after, --timeout (a step's deadline) with --interval
// and --timeout not negative and --lease-duration valid (ValidateLeaseDuration).
//
// Errors: one line naming the flag (`--step=0: give N (1 or more) or a percentage P% of
// replicas`).
func StsWalk(step string, pauseAfter []int32, timeout, interval, leaseDuration time.Duration) (partition.Config, error) {
	if err := ValidateLeaseDuration(leaseDuration); err != nil {
		return partition.Config{}, err
	}
	st := intstr.Parse(step)
	if _, err := partition.StepSize(st, 100); err != nil || st.Type == intstr.Int && st.IntValue() < 1 || strings.HasPrefix(step, "-") {
		return partition.Config{}, fmt.Errorf("--step=%s: give N (1 or more) or a percentage P%% of replicas", step)
	}
	if interval < 0 || timeout < 0 {
		return partition.Config{}, errors.New("--interval and --timeout must not be negative")
	}
	return partition.Config{Step: st, PauseAfter: pauseAfter, ProgressDeadline: timeout}, nil
}

// StsArg reports whether args name a StatefulSet or DaemonSet (target.ParseKindArgs), and
// refuses a DaemonSet or more than one object in one line of verb.
func StsArg(args []string, verb string) (ref target.KindRef, ok bool, err error) {
	ka, ok, err := target.ParseKindArgs(args, false)
	if !ok || err != nil {
		return ref, ok, err
	}
	if len(ka.Refs) != 1 {
		return ref, true, fmt.Errorf("%s works on one StatefulSet per run: give one sts/NAME", verb)
	}
	if ka.Refs[0].Kind == target.KindDaemonSet {
		return ref, true, fmt.Errorf("%s ds/%s: DaemonSet drive is out of scope; roll it out with kubectl rollout and watch it with kubectl rollplan status ds/%s", verb, ka.Refs[0].Name, ka.Refs[0].Name)
	}
	return ka.Refs[0], true, nil
}

// StsStall is what the feasibility checks predict for drive sts/NAME's change before its
// first write (pipeline's CheckKindChange): Stall is nil when nothing stalls, or when no
// check ran (no change, --checks=none).
type StsStall struct {
	Namespace, Name string
	Stall           *feasibility.Stall
	FailOnStall     bool
}

// CheckSts runs --checks on the plan of cfg's change (pipeline.Config.CheckKindChange on a
// Live source of cfg.Client). Errors: the checks' reads.
func CheckSts(ctx context.Context, cfg StsConfig) (*StsStall, error) {
	s := &StsStall{Namespace: cfg.Ref.Namespace, Name: cfg.Ref.Name, FailOnStall: cfg.FailOnStall}
	checks, err := feasibility.ParseChecks(cfg.Checks)
	if err != nil || !cfg.Change.Any() {
		return s, err
	}
	pc := &pipeline.Config{Feasibility: checks}
	src := pipeline.NewLive("", cfg.Ref.Namespace, func() (kubernetes.Interface, error) { return cfg.Client, nil })
	r, err := pc.CheckKindChange(ctx, src, cfg.Ref, pipeline.KindChange{Images: cfg.Change.Images, Restart: cfg.Change.Restart, Now: cfg.Now().Truncate(time.Second)})
	if err != nil || r == nil {
		return s, err
	}
	s.Stall = r.Stall
	return s, nil
}

// Exit is ExitStalled with its message when --fail-on-stall and a stall is predicted
// (nothing is written), else 0.
func (s *StsStall) Exit() (int, string) {
	if s.Stall == nil || !s.FailOnStall {
		return 0, ""
	}
	return ExitStalled, fmt.Sprintf("statefulset %s/%s: the plan stalls at sync %d (%s: %s): nothing changed; make room (%s) or drop --fail-on-stall to drive and hold there",
		s.Namespace, s.Name, s.Stall.Step, s.Stall.Reason, s.Stall.Message, ObjectsOr(s.Stall.Objects))
}

// StsResult is the end of `drive sts/NAME`: DryRun with Plan the walk it would make; or the
// walk's end, Plan (with -o) the StatefulSetDrive object whose Result is set when the walk
// ended (nil: nothing to print), and Held when it stopped at a partition (exit 4).
type StsResult struct {
	DryRun bool
	Plan   *v1alpha1.StatefulSetDrive
	Held   *stsdrive.HeldError
}

// DriveSts is `drive sts/NAME` after its checks: for --dry-run the walk (stsdrive.Plan);
// else the walk itself (stsdrive.Run), with -o the plan read first and its result set at
// the end. Errors: Plan's; Run's that are not a hold (a hold is StsResult.Held); after an
// interrupt, one line saying the StatefulSet stays at its partition.
func DriveSts(ctx context.Context, cfg StsConfig) (*StsResult, error) {
	if cfg.DryRun != cmdutil.DryRunNone {
		plan, err := stsdrive.Plan(ctx, cfg.Options, map[cmdutil.DryRunStrategy]string{cmdutil.DryRunClient: "client", cmdutil.DryRunServer: "server"}[cfg.DryRun])
		if err != nil {
			return nil, err
		}
		return &StsResult{DryRun: true, Plan: plan}, nil
	}
	r := &StsResult{}
	if cfg.Object {
		plan, err := stsdrive.Plan(ctx, cfg.Options, "")
		if err != nil {
			return nil, err
		}
		r.Plan = plan
	}
	err := stsdrive.Run(ctx, cfg.Options)
	if r.Plan != nil {
		if r.Plan.Result = stsdrive.Result(err); r.Plan.Result == nil {
			r.Plan = nil
		}
	}
	switch {
	case errors.As(err, &r.Held):
		return r, nil
	case err != nil && ctx.Err() != nil:
		return r, fmt.Errorf("statefulset %s/%s: interrupted; it stays at its partition: run drive again to continue, or drive abort sts/%s", cfg.Ref.Namespace, cfg.Ref.Name, cfg.Ref.Name)
	}
	return r, err
}

// Exit is ExitHeld when the walk stopped at a partition, else 0.
func (r *StsResult) Exit() (int, string) {
	if r.Held != nil {
		return ExitHeld, ""
	}
	return 0, ""
}
