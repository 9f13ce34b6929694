package pipeline

import (
	"errors"
	"fmt"
	"time"

	"github.com/rollplan/kubectl-rollplan/pkg/status"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// The status verb's flags (kubectl-rollplan status): pkg/cmd binds them, these check them and
// make status.Config (StatusConfig); FollowStatus and ReadContextsStatus (status_run.go) read
// it; pkg/printer shows the result.

// StatusFlags are the status verb's flags: Watch (--watch), Timeout (--timeout, with --watch;
// 0: never), PodReadyAfter and SyncLatency (--pod-ready-after, --sync-latency: the timed
// model's, as SetStatusTiming reads them), FailFast and FailFastAfter (--fail-fast,
// --fail-fast-after) and Checks (--checks: StatusChecks' list).
type StatusFlags struct {
	Watch         bool
	Timeout       time.Duration
	PodReadyAfter string
	SyncLatency   string
	FailFast      bool
	FailFastAfter time.Duration
	Checks        string
}

// Validate checks the flags (pure); contexts is a read of several contexts (--contexts),
// which --watch does not follow. Errors name the flag at fault: --timeout below 0 or without
// --watch, ValidateFailFastAfter's, ValidateChecks', SetStatusTiming's, --watch across
// contexts.
func (f StatusFlags) Validate(contexts bool) error {
	switch {
	case f.Timeout < 0:
		return fmt.Errorf("--timeout %s: must be 0 (never) or more", f.Timeout)
	case f.Timeout > 0 && !f.Watch:
		return errors.New("--timeout needs --watch")
	}
	if err := ValidateFailFastAfter(f.FailFastAfter); err != nil {
		return err
	}
	if err := ValidateChecks(f.Checks); err != nil {
		return err
	}
	if err := SetStatusTiming(&status.Config{}, f.PodReadyAfter, f.SyncLatency); err != nil {
		return err
	}
	if contexts && f.Watch {
		return errors.New("status --watch follows one cluster: drop --watch, or run it once per context with --context")
	}
	return nil
}

// ValidateFailFastAfter checks --fail-fast-after (status, drive): more than 0.
func ValidateFailFastAfter(after time.Duration) error {
	if after <= 0 {
		return fmt.Errorf("--fail-fast-after %s: must be more than 0", after)
	}
	return nil
}

// Config is status.Follow's configuration of the flags for sel (StatusConfig), with the
// clock now and the ETA on.
func (f StatusFlags) Config(sel *target.Selection, now func() time.Time) (status.Config, error) {
	return StatusConfig(sel, status.Config{Watch: f.Watch, Timeout: f.Timeout, Now: now, ETA: true,
		FailFast: f.FailFast, FailFastAfter: f.FailFastAfter}, f.PodReadyAfter, f.SyncLatency)
}

// StatusExit is the status verb's exit code and message once sts (the last statuses, of every
// context read) are shown (status.Conclude's result and message): ExitStalled (3) for a
// rollout past its progress deadline, ExitTimedOut (5) when --timeout passed (timedOut),
// ExitFailFast (6) for --fail-fast, else ExitError (1, message "") when failedContexts
// (contexts not read) > 0, else ExitOK. timeout is --timeout,
// failFastAfter --fail-fast-after.
func StatusExit(sts []*status.Status, timedOut bool, timeout, failFastAfter time.Duration, failedContexts int) (int, string) {
	res, msg := status.Conclude(sts, timedOut, timeout, failFastAfter)
	if code := map[status.Result]int{status.ResultFailed: ExitStalled, status.ResultTimedOut: ExitTimedOut, status.ResultFailedFast: ExitFailFast}[res]; code != 0 {
		return code, msg
	}
	if failedContexts > 0 {
		return ExitError, ""
	}
	return ExitOK, ""
}
