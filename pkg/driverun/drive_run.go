package driverun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/pkg/drive"
	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// Exit codes of drive's results: the same numbers as pkg/cmd's ExitError, ExitStalled and
// ExitHeld (0 is success).
const (
	ExitError   = 1
	ExitStalled = 3
	ExitHeld    = 4
)

// Config is one run of `drive deploy/NAME` or `abort deploy/NAME` (Options.Abort): the
// engine's options (Client, Namespace, Name, the walk's flags, Progress, Confirm, Now; its
// Desired is filled by Prepare) and what runs before the takeover.
type Config struct {
	drive.Options
	// Change is drive's change flags (nil for abort); Rereadable and In are DesiredInput's.
	Change     Change
	Rereadable bool
	In         io.Reader
	// DryRun is --dry-run: none, client (print the plan and comparison) or server (also the
	// takeover write with dryRun=All).
	DryRun cmdutil.DryRunStrategy
	// Checks is --checks (a valid value); FailOnStall is --fail-on-stall.
	Checks      string
	FailOnStall bool
}

// Prepared is what drive (or abort) decided before its first write, in the order pkg/printer
// renders it (PrintDrivePreparation): warnings, then nothing to do, or the plan, the guard's
// state and the feasibility checks' findings.
type Prepared struct {
	Namespace, Name string
	Abort           bool
	// Warnings are the change's (a client-side fallback) and, with nothing to do, the
	// tidy-up's; Plan.Warnings are the plan's.
	Warnings []string
	// Nothing is set when there is nothing to drive (exit 0).
	Nothing *drive.NothingToDoError
	// Plan is the engine's plan (nil with Nothing, or when Prepare failed).
	Plan *drive.Prepared
	// GuardInstalled and GuardErr are drive.GuardInstalled's (drive only).
	GuardInstalled bool
	GuardErr       error
	// Checked says the feasibility checks ran (Feasibility is their result, its Stall nil
	// when none is predicted); ChecksErr is why they could not run (a warning).
	Checked     bool
	Feasibility *feasibility.Result
	ChecksErr   error
	FailOnStall bool

	cfg Config
	d   *drive.Driver
}

// Prepare is everything drive does before its first write: the change applied and
// server-defaulted (Desired), the engine's plan (drive.Driver.Prepare; with nothing to do
// and no dry run, the leftovers of an earlier drive tidied), whether the guard is installed,
// and the feasibility checks on the plan (Check). For abort, only the plan. The returned
// Prepared carries the warnings gathered so far even with an error.
//
// Errors: Desired's, Prepare's (not NothingToDoError: that is Prepared.Nothing).
func Prepare(ctx context.Context, cfg Config) (*Prepared, error) {
	p := &Prepared{Namespace: cfg.Namespace, Name: cfg.Name, Abort: cfg.Abort, FailOnStall: cfg.FailOnStall, cfg: cfg}
	if !cfg.Abort {
		desired, warnings, err := Desired(ctx, cfg.Client, DesiredInput{
			Namespace: cfg.Namespace, Name: cfg.Name, Change: cfg.Change, Rereadable: cfg.Rereadable, In: cfg.In, Now: cfg.Now,
		})
		if err != nil {
			return p, err
		}
		p.Warnings, cfg.Desired = warnings, desired
	}
	p.d = drive.New(cfg.Options)
	plan, err := p.d.Prepare(ctx)
	if !cfg.Abort && errors.As(err, &p.Nothing) {
		if cfg.DryRun == cmdutil.DryRunNone {
			if err := drive.TidyLeftovers(ctx, cfg.Client, cfg.Namespace, cfg.Name); err != nil {
				p.Warnings = append(p.Warnings, err.Error())
			}
		}
		return p, nil
	}
	if err != nil || cfg.Abort {
		p.Plan = plan
		return p, err
	}
	p.Plan = plan
	p.GuardInstalled, p.GuardErr = drive.GuardInstalled(ctx, cfg.Client)
	p.Feasibility, p.Checked, p.ChecksErr = Check(ctx, cfg.Client, target.Ref{Namespace: cfg.Namespace, Name: cfg.Name}, cfg.Checks, plan)
	if p.ChecksErr != nil {
		p.Checked, p.Feasibility = false, nil
	}
	return p, nil
}

// Stall returns the stall the checks predict, or nil.
func (p *Prepared) Stall() *feasibility.Stall {
	if !p.Checked || p.Feasibility == nil {
		return nil
	}
	return p.Feasibility.Stall
}

// Exit is the exit decision once the preparation is printed: ExitStalled with its message
// when --fail-on-stall and the checks predict a stall (nothing written), else 0.
func (p *Prepared) Exit() (int, string) {
	s := p.Stall()
	if s == nil || !p.FailOnStall {
		return 0, ""
	}
	return ExitStalled, fmt.Sprintf("deployment %s/%s: the plan stalls at step %d (%s): nothing changed; make room (%s) or drop --fail-on-stall to drive and hold there", p.Namespace, p.Name, s.Step, s.Reason, ObjectsOr(s.Objects))
}

// DryRunResult is drive --dry-run's outcome: Held when drive would continue a held
// Deployment (no takeover to compare), else the Comparison of drive's plan with the
// controller's; Server says the takeover went to the API server with dryRun=All, Done that
// every step succeeded (the closing line is then printed).
type DryRunResult struct {
	Held       bool
	Comparison *drive.Comparison
	Server     bool
	Done       bool
}

// DryRun compares the plan with the controller's (drive.Compare) and, for --dry-run=server,
// sends the takeover with dryRun=All. The result is returned with an error too (the
// comparison is printed before the server's refusal). Errors: Compare's, the server's.
func (p *Prepared) DryRun(ctx context.Context) (*DryRunResult, error) {
	r := &DryRunResult{Server: p.cfg.DryRun == cmdutil.DryRunServer}
	if p.Plan.Takeover == nil {
		r.Held, r.Done = true, true
		return r, nil
	}
	c, err := drive.Compare(p.Plan.Takeover)
	if err != nil {
		return nil, err
	}
	r.Comparison = c
	if r.Server {
		if err := drive.DryRunTakeover(ctx, p.cfg.Client, p.Plan.Takeover); err != nil {
			return r, err
		}
	}
	r.Done = true
	return r, nil
}

// Outcome is the end of a drive or abort walk on Namespace/Name: Result when the engine
// returned one (handed back, or held by --steps, --until-step or an answer), or Held when
// it stopped with the Deployment held (drive.HeldError) for Why: "interrupted" (Ctrl-C,
// SIGTERM), "stopped by the error below" (not intact), else the error.
type Outcome struct {
	Namespace, Name string
	Result          *drive.Result
	Held            *drive.HeldError
	Why             string
}

// Run walks the prepared plan (drive.Driver.Run). Errors: the engine's that leave nothing
// held; a held stop is Outcome.Held.
func (p *Prepared) Run(ctx context.Context) (*Outcome, error) {
	res, err := p.d.Run(ctx, p.Plan)
	return NewOutcome(ctx, p.Namespace, p.Name, res, err)
}

// NewOutcome classifies the end of drive.Driver.Run on namespace/name (res, err) under ctx:
// a drive.HeldError becomes Outcome.Held with its Why; other errors are returned as they are.
func NewOutcome(ctx context.Context, namespace, name string, res *drive.Result, err error) (*Outcome, error) {
	o := &Outcome{Namespace: namespace, Name: name, Result: res}
	if err == nil {
		return o, nil
	}
	if !errors.As(err, &o.Held) {
		return nil, err
	}
	o.Result, o.Why = nil, o.Held.Err.Error()
	switch {
	case ctx.Err() != nil:
		o.Why = "interrupted"
	case !o.Held.Intact:
		o.Why = "stopped by the error below"
	}
	return o, nil
}

// Exit is the outcome's exit code and message: ExitHeld for a Deployment left held intact
// (interrupted, the API server unreachable, the lease lapsed) or held on purpose, ExitError
// with the error for a stop by a real error (an edit by someone else), else 0.
func (o *Outcome) Exit() (int, string) {
	switch {
	case o.Held != nil && o.Held.Intact:
		return ExitHeld, ""
	case o.Held != nil:
		return ExitError, o.Held.Err.Error()
	case o.Result != nil && o.Result.Outcome == drive.OutcomeHeld:
		return ExitHeld, ""
	}
	return 0, ""
}

// ObjectsOr joins objs with ", ", or says "the cluster" when none is named.
func ObjectsOr(objs []string) string {
	if len(objs) == 0 {
		return "the cluster"
	}
	return strings.Join(objs, ", ")
}

// ParseDryRun maps a --dry-run value to kubectl's DryRunStrategy: "none", "client" or
// "server". Unlike cmdutil.GetDryRunStrategy it takes no deprecated form (true, false, a bare
// --dry-run with a deprecation warning): drive documents a bare --dry-run as client and has
// always refused the rest.
//
// Errors: any other value (`--dry-run=maybe: use "none", "client" or "server"`).
func ParseDryRun(v string) (cmdutil.DryRunStrategy, error) {
	switch v {
	case "none":
		return cmdutil.DryRunNone, nil
	case "client":
		return cmdutil.DryRunClient, nil
	case "server":
		return cmdutil.DryRunServer, nil
	}
	return cmdutil.DryRunNone, fmt.Errorf(`--dry-run=%s: use "none", "client" or "server"`, v)
}

// ValidateWalk checks drive's walk flags alone (pure): --steps and --until-step are 1 or
// more, or 0 (their default) for no limit, not both; --interval and --progress-timeout not
// negative; --lease-duration 3s or more.
func ValidateWalk(steps, untilStep int, interval, progressTimeout, leaseDuration time.Duration) error {
	switch {
	case steps < 0:
		return fmt.Errorf("--steps=%d: must be 1 or more (0, the default, makes every step)", steps)
	case untilStep < 0:
		return fmt.Errorf("--until-step=%d: must be 1 or more (0, the default, makes every step)", untilStep)
	case steps > 0 && untilStep > 0:
		return errors.New("--steps and --until-step: give one of them")
	case interval < 0 || progressTimeout < 0:
		return errors.New("--interval and --progress-timeout must not be negative")
	}
	return ValidateLeaseDuration(leaseDuration)
}

// MinLeaseDuration is the shortest --lease-duration accepted.
const MinLeaseDuration = 3 * time.Second

// ValidateLeaseDuration checks --lease-duration (MinLeaseDuration or more).
func ValidateLeaseDuration(d time.Duration) error {
	if d < MinLeaseDuration {
		return fmt.Errorf("--lease-duration=%s: must be 3s or more", d)
	}
	return nil
}
