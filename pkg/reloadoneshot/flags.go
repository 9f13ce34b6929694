package reloadoneshot

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// Flags are the flags of one run of `kubectl rollplan reload` (without --watch), as
// genericclioptions' flag structs are: AddFlags registers them, Validate checks them alone;
// pkg/cmd copies them into Config. -l/--all/-A, --readiness, --dry-run, --field-manager's
// registration and -o are the command's; the watch mode's are reloadcontroller.WatchFlags.
type Flags struct {
	// Adopt is --adopt; Yes is --yes (do not ask); Drive is --drive (walk each restart).
	Adopt, Yes, Drive bool
	// MaxConcurrent is --max-concurrent (1 or more); Timeout is --timeout (one rollout's).
	MaxConcurrent int
	Timeout       time.Duration
	// Readiness is --readiness (a planner.Readiness, not timed).
	Readiness string
	// MaxSteps is --max-steps: rows of each plan's step table (0: all).
	MaxSteps int
	// Checks is --checks: feasibility checks of each restart's plan (feasibility.ParseChecks).
	Checks string
	// FieldManager is --field-manager of every patch (and of --drive's).
	FieldManager string
	// Interval, ProgressTimeout and LeaseDuration are drive's flags that --drive passes on.
	Interval, ProgressTimeout, LeaseDuration time.Duration
}

// NewFlags returns the defaults: one restart at a time, 10m each, batched readiness, 40
// step rows, every check, drive's lease of leaseDuration, patches under fieldManager.
func NewFlags(fieldManager string, leaseDuration time.Duration) Flags {
	return Flags{MaxConcurrent: 1, Timeout: 10 * time.Minute, Readiness: DefaultReadiness, MaxSteps: 40,
		Checks: "all", FieldManager: fieldManager, LeaseDuration: leaseDuration}
}

// AddFlags registers --adopt, --yes, --max-concurrent, --timeout, --max-steps, --drive,
// --interval, --progress-timeout, --lease-duration and --checks on cmd.
func (f *Flags) AddFlags(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.BoolVar(&f.Adopt, "adopt", false, "Record the current checksums of Deployments seen for the first time (annotation rollplan.dev/adopted-config-checksums on the Deployment) without restarting anything.")
	fl.BoolVarP(&f.Yes, "yes", "y", false, "Do not ask for confirmation.")
	fl.IntVar(&f.MaxConcurrent, "max-concurrent", f.MaxConcurrent, "How many restarts roll out at once; each is waited for until complete before the next starts.")
	fl.DurationVar(&f.Timeout, "timeout", f.Timeout, "How long to wait for one restart's rollout to complete; after a timeout no further restart starts.")
	fl.IntVar(&f.MaxSteps, "max-steps", f.MaxSteps, "Rows of each plan's step table; the middle of a longer plan is elided (0: all).")
	fl.BoolVar(&f.Drive, "drive", false, "Walk each restart step by step with drive (see `kubectl rollplan drive --help`; --interval, --progress-timeout and --lease-duration apply).")
	fl.DurationVar(&f.Interval, "interval", 0, "With --drive: bake time between two steps (for example 2m).")
	fl.DurationVar(&f.ProgressTimeout, "progress-timeout", 0, "With --drive: how long a step may wait for its pods (default: the Deployment's progressDeadlineSeconds).")
	fl.DurationVar(&f.LeaseDuration, "lease-duration", f.LeaseDuration, "With --drive: how long drive's lease lasts without renewal.")
	fl.StringVar(&f.Checks, "checks", f.Checks, "Feasibility checks run on each restart's plan: a comma-separated list of quota, capacity, pdb, hpa, or all, or none.")
}

// Validate checks the one-shot flags alone (pure; --lease-duration is drive's to check).
// Errors: one line naming the flag.
func (f *Flags) Validate() error {
	if err := f.validatePacing(); err != nil {
		return err
	}
	switch {
	case f.Drive && f.Adopt:
		return errors.New("--drive and --adopt: --adopt restarts nothing, give one of them")
	case f.Drive && f.MaxConcurrent > 1:
		return errors.New("--drive walks one restart at a time: drop --max-concurrent")
	case f.Interval < 0 || f.ProgressTimeout < 0:
		return errors.New("--interval and --progress-timeout must not be negative")
	}
	if _, err := feasibility.ParseChecks(f.Checks); err != nil {
		return err
	}
	return pipeline.ValidateReadiness(f.Readiness, false)
}

// ValidateWatch checks the flags with --watch (pure): the pacing and field manager it
// shares, and none of the one-shot's (all: --all given; dryRun: --dry-run given; output:
// -o given).
func (f *Flags) ValidateWatch(all, dryRun, output bool) error {
	if err := f.validatePacing(); err != nil {
		return err
	}
	switch {
	case all || f.Adopt || f.Drive || f.Yes || dryRun:
		return errors.New("--watch restarts every opted-in Deployment of the namespace by itself: --all, --adopt, --drive, --yes and --dry-run are for one run without --watch")
	case output:
		return errors.New("-o: --watch prints one line per restart; -o prints the plans of one run without --watch")
	}
	return nil
}

// validatePacing checks --max-concurrent, --timeout and --field-manager.
func (f *Flags) validatePacing() error {
	switch {
	case f.MaxConcurrent < 1:
		return fmt.Errorf("--max-concurrent=%d: must be 1 or more", f.MaxConcurrent)
	case f.Timeout <= 0:
		return fmt.Errorf("--timeout=%s: must be more than 0", f.Timeout)
	case f.FieldManager == "":
		return errors.New("--field-manager must not be empty")
	}
	return nil
}

// NamedKinds reads args as the StatefulSets and DaemonSets they name (target.ParseKindArgs
// with bulk: -l, --all or -A in s), each in namespace ns; named is false when they name none
// (the arguments are then the Deployment selection's). Errors: ParseKindArgs'; names with
// -l or --all, or with -A, in kubectl's words.
func NamedKinds(args []string, ns string, s *target.Flags) (ka target.KindArgs, named bool, err error) {
	ka, named, err = target.ParseKindArgs(args, s.All || s.Selector != "" || s.AllNamespaces)
	if err != nil || !named {
		return target.KindArgs{}, named, err
	}
	for i := range ka.Refs {
		ka.Refs[i].Namespace = ns
	}
	switch {
	case len(ka.Refs) > 0 && (s.Selector != "" || s.All):
		return ka, true, errors.New("name cannot be provided when a selector is specified: give names, or -l/--selector or --all, not both")
	case len(ka.Refs) > 0 && s.AllNamespaces:
		return ka, true, errors.New("a resource cannot be retrieved by name across all namespaces: drop -A/--all-namespaces and give the namespace with -n")
	}
	return ka, true, nil
}

// ValidateContexts refuses, across n contexts (more than one), what would write (pure):
// --yes and --drive, --watch (watch), --dry-run=server (serverDryRun).
func (f *Flags) ValidateContexts(n int, watch, serverDryRun bool) error {
	switch {
	case n <= 1:
		return nil
	case f.Yes || f.Drive:
		return fmt.Errorf("reload writes to one cluster: --contexts names %d contexts; without --yes it only shows each context's restarts, or run it once per context with --context", n)
	case watch:
		return errors.New("reload --watch restarts in one cluster: run it once per context with --context")
	case serverDryRun:
		return errors.New("--dry-run=server sends each restart to one cluster: run it once per context with --context")
	}
	return nil
}

// ErrOutputNeedsYes refuses -o without --yes or --dry-run: the plans are on stdout, a
// question would be mixed into them, so reload does not ask.
var ErrOutputNeedsYes = errors.New("-o prints the plans on standard output, so reload does not ask for confirmation: pass --yes to write, or --dry-run=client to only look")

// ValidateOutput checks -o with the flags (pure): --yes or a dry run (dryRun) with it,
// unless across several contexts (contexts), which never ask. Errors: ErrOutputNeedsYes.
func (f *Flags) ValidateOutput(dryRun, contexts bool) error {
	if !f.Yes && !dryRun && !contexts {
		return ErrOutputNeedsYes
	}
	return nil
}

// Config is the Config of these flags over sel (the Deployments; nil when kinds names
// StatefulSets or DaemonSets) and the selection flags s (-l, --all, -A: bulk), the kinds'
// namespace ns (-n's or the context's); dry runs, Progress and Now are the caller's to set.
func (f *Flags) Config(sel *target.Selection, kinds target.KindArgs, ns string, s *target.Flags) *Config {
	return &Config{
		Selection: sel, KindArgs: kinds, KindsNamespace: ns,
		Bulk: s.All || s.Selector != "" || s.AllNamespaces, AllNamespaces: s.AllNamespaces, Selector: s.Selector,
		Adopt: f.Adopt, Readiness: f.Readiness, Checks: f.Checks,
		MaxConcurrent: f.MaxConcurrent, Timeout: f.Timeout, FieldManager: f.FieldManager,
	}
}
