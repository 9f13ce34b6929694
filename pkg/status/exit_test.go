package status

import (
	"testing"
	"time"
)

// TestConclude: the message names the failed Deployments (and only them), the timeout, or
// nothing, as Summarize decides.
func TestConclude(t *testing.T) {
	for _, tc := range []struct {
		name     string
		sts      []*Status
		timedOut bool
		want     Result
		msg      string
	}{
		{"complete", []*Status{{Name: "a", Phase: PhaseComplete}}, false, ResultComplete, ""},
		{"waiting", []*Status{{Name: "a", Phase: PhaseProgressing}}, false, ResultWaiting, ""},
		{"failed", []*Status{{Name: "a", Phase: PhaseFailed}, {Name: "b", Phase: PhaseComplete}, {Name: "c", Phase: PhaseFailed}}, true, ResultFailed,
			`deployment "a", "c" exceeded its progress deadline`},
		{"timed out", []*Status{{Name: "a", Phase: PhaseProgressing}}, true, ResultTimedOut, "timed out after 1m30s waiting for the rollout to finish"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, msg := Conclude(tc.sts, tc.timedOut, 90*time.Second, 30*time.Second)
			if got != tc.want || msg != tc.msg {
				t.Errorf("Conclude = %v %q, want %v %q", got, msg, tc.want, tc.msg)
			}
		})
	}
}
