package previewrun

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rollplan/kubectl-rollplan/pkg/printer"
)

// The exit codes a preview ends with (cmd.ExitError and cmd.ExitStalled).
const (
	// CodeError: a file, a Deployment or a context failed (each named on stderr).
	CodeError = 1
	// CodeStalled: --fail-on-stall and a plan ends Stalled.
	CodeStalled = 3
)

// Exit is how a preview ends once everything is printed: Code, and Message the last line
// ("" for none). pkg/cmd turns it into its exit error.
type Exit struct {
	Code    int
	Message string
}

func (e *Exit) Error() string {
	if e.Message == "" {
		return "exit code " + strconv.Itoa(e.Code)
	}
	return e.Message
}

// FleetExit is the exit of a preview over many Deployments, once every result is printed
// (cmd.fleetExit): CodeError with one line naming the failed Deployments when any failed,
// else CodeStalled (nothing more printed, as for one plan) when failOnStall and any plan
// stalled, else nil. A failure wins over a stall.
func FleetExit(failed []string, stalled int, failOnStall bool) error {
	switch {
	case len(failed) > 0:
		return &Exit{Code: CodeError, Message: fmt.Sprintf("%d Deployment(s) failed: %s", len(failed), strings.Join(failed, ", "))}
	case failOnStall && stalled > 0:
		return &Exit{Code: CodeStalled}
	}
	return nil
}

// SetExit is the exit of a manifest set's preview once each failure is printed
// (printer.PrintSetFailures): files unreadable files, failed the Deployments that could not
// be planned, failedContexts the contexts that could not be read. CodeError with a last line
// naming the failed Deployments and counting the files when a file failed; CodeError alone
// when only contexts failed; else FleetExit's.
func SetExit(files int, failed []string, failedContexts int, stalled, failOnStall bool) error {
	switch {
	case files == 0 && len(failed) == 0 && failedContexts > 0:
		return &Exit{Code: CodeError}
	case files == 0:
		n := 0
		if stalled {
			n = 1
		}
		return FleetExit(failed, n, failOnStall)
	}
	return &Exit{Code: CodeError, Message: printer.SetFailureMessage(files, failed)}
}
