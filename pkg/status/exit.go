package status

import (
	"fmt"
	"strings"
	"time"
)

// Conclude is Summarize's result of sts with the one-line message a status command ends with
// (empty for ResultComplete and ResultWaiting): ResultFailed names every Deployment past its
// progress deadline ("deployment "a", "b" exceeded its progress deadline"), ResultTimedOut
// the --timeout ("timed out after 10m0s waiting for the rollout to finish"), and
// ResultFailedFast each FailFastMessage joined by "\nerror: " (one error line each once
// printed with the "error: " prefix). timeout is --timeout, failFastAfter --fail-fast-after.
// The words are those of kubectl rollout status's errors (rollout_status.go, v0.36.3).
func Conclude(sts []*Status, timedOut bool, timeout, failFastAfter time.Duration) (Result, string) {
	r := Summarize(sts, timedOut)
	switch r {
	case ResultFailed:
		var names []string
		for _, s := range sts {
			if s.Phase == PhaseFailed {
				names = append(names, fmt.Sprintf("%q", s.Name))
			}
		}
		return r, fmt.Sprintf("deployment %s exceeded its progress deadline", strings.Join(names, ", "))
	case ResultTimedOut:
		return r, fmt.Sprintf("timed out after %s waiting for the rollout to finish", timeout)
	case ResultFailedFast:
		var msgs []string
		for _, s := range sts {
			if s.FailedFast {
				msgs = append(msgs, FailFastMessage(s, failFastAfter))
			}
		}
		return r, strings.Join(msgs, "\nerror: ")
	}
	return r, ""
}
