package pipeline

import (
	"fmt"

	"github.com/rollplan/kubectl-rollplan/pkg/estimate"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// Validate checks the timed model's flags against --readiness and --state-file (pure):
// --pod-ready-after and --sync-latency need --readiness timed and must parse
// (estimate.ParseReadyAfter, estimate.ParseSyncLatency); a timed preview of a state file needs
// --pod-ready-after (a state file has no pods to measure). Errors: one line naming the flag.
func (t Timing) Validate(readiness, stateFile string) error {
	timed := readiness == string(planner.ReadinessTimed)
	switch {
	case t.PodReadyAfter != "" && !timed:
		return fmt.Errorf("--pod-ready-after applies to --readiness timed only; add --readiness timed")
	case t.SyncLatency != "" && !timed:
		return fmt.Errorf("--sync-latency applies to --readiness timed only; add --readiness timed")
	}
	if t.SyncLatency != "" {
		if _, err := estimate.ParseSyncLatency(t.SyncLatency); err != nil {
			return err
		}
	}
	switch {
	case t.PodReadyAfter != "":
		_, err := estimate.ParseReadyAfter(t.PodReadyAfter)
		return err
	case timed && stateFile != "":
		return fmt.Errorf("--readiness timed with --state-file needs --pod-ready-after DURATION (or MIN..MAX): a state file has no pods to measure")
	}
	return nil
}
