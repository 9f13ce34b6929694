package previewrun

import (
	"strconv"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
)

// The exit codes a preview ends with (pipeline.ExitError and pipeline.ExitStalled).
const (
	// CodeError: a file, a Deployment or a context failed (each named on stderr).
	CodeError = pipeline.ExitError
	// CodeStalled: --fail-on-stall and a plan ends Stalled.
	CodeStalled = pipeline.ExitStalled
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
// (pipeline.FleetExit): CodeError with one line naming the failed Deployments when any failed,
// else CodeStalled (nothing more printed, as for one plan) when failOnStall and any plan
// stalled, else nil. A failure wins over a stall.
func FleetExit(failed []string, stalled int, failOnStall bool) error {
	code, msg := pipeline.FleetExit(failed, stalled, failOnStall)
	if code == pipeline.ExitOK {
		return nil
	}
	return &Exit{Code: code, Message: msg}
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
