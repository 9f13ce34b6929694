package pipeline

import (
	"fmt"

	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// ReadinessNames returns the values of --readiness (planner.Readinesses: batched, instant,
// never, timed), in the planner's order, for flag completion.
func ReadinessNames() []string {
	var out []string
	for _, r := range planner.Readinesses {
		out = append(out, string(r))
	}
	return out
}

// ValidateReadiness checks a --readiness value (planner.ParseReadiness). timed says whether
// the command has the timed model (preview): without it "timed" is refused, naming the
// command that has it. Errors are one line starting "--readiness".
func ValidateReadiness(s string, timed bool) error {
	if !timed && s == string(planner.ReadinessTimed) {
		return fmt.Errorf("--readiness timed: only 'kubectl rollplan preview' has the timed model (with --pod-ready-after); use batched, instant or never here")
	}
	if _, err := planner.ParseReadiness(s); err != nil {
		return fmt.Errorf("--readiness: %w", err)
	}
	return nil
}
