package pipeline

import (
	"fmt"
	"strings"
)

// Exit codes of kubectl-rollplan. They are part of the CLI's contract (see README); pkg/cmd
// names them as its own (cmd.ExitError ...) and turns a decision below into its exit error.
const (
	// ExitOK: the command did what it was asked.
	ExitOK = 0
	// ExitError: any error that does not carry another code (bad input, a missing object,
	// an API failure, an edit by someone else during drive).
	ExitError = 1
	// ExitStalled: with --fail-on-stall, the plan ends Stalled (the rollout would not complete);
	// status: a rollout exceeded its progress deadline (ProgressDeadlineExceeded).
	ExitStalled = 3
	// ExitHeld: drive stopped on purpose and holds the rollout (--steps, --until-step, a hold
	// answer, or a timeout).
	ExitHeld = 4
	// ExitTimedOut: status --watch, --timeout passed before every rollout was complete (and
	// none exceeded its progress deadline, which is ExitStalled).
	ExitTimedOut = 5
	// ExitFailFast: status --fail-fast: the new ReplicaSet's pods stayed in a state that
	// holds the rollout back (ImagePullBackOff, CrashLoopBackOff, Unschedulable,
	// FailedCreate, ...) for --fail-fast-after. (drive --fail-fast holds: ExitHeld, its
	// closing block naming the reasons.)
	ExitFailFast = 6
)

// FleetExit decides the exit of a command over many Deployments, once every result is
// printed: ExitError with one line naming the failed Deployments (failed: their names as
// printer.DeploymentName gives them) when any failed, else ExitStalled with no message (as
// for one plan) when failOnStall and stalled > 0, else ExitOK. A failure wins over a stall: a
// Deployment that could not be planned may stall too.
//
//	FleetExit([]string{"deployment.apps/web"}, 2, true) == (1, "1 Deployment(s) failed: deployment.apps/web")
func FleetExit(failed []string, stalled int, failOnStall bool) (code int, msg string) {
	switch {
	case len(failed) > 0:
		return ExitError, fmt.Sprintf("%d Deployment(s) failed: %s", len(failed), strings.Join(failed, ", "))
	case failOnStall && stalled > 0:
		return ExitStalled, ""
	}
	return ExitOK, ""
}
