package pipeline

import (
	"strings"
	"testing"
	"time"

	"github.com/rollplan/kubectl-rollplan/pkg/status"
)

// TestStatusFlagsValidate: each refused flag is named; --watch is refused across contexts only.
func TestStatusFlagsValidate(t *testing.T) {
	ok := StatusFlags{FailFastAfter: 30 * time.Second, Checks: "all"}
	for _, tc := range []struct {
		set      func(*StatusFlags)
		contexts bool
		want     string
	}{
		{func(*StatusFlags) {}, true, ""},
		{func(f *StatusFlags) { f.Timeout = -time.Second }, false, "--timeout -1s"},
		{func(f *StatusFlags) { f.Timeout = time.Second }, false, "--timeout needs --watch"},
		{func(f *StatusFlags) { f.FailFastAfter = 0 }, false, "--fail-fast-after 0s: must be more than 0"},
		{func(f *StatusFlags) { f.Checks = "nope" }, false, "nope"},
		{func(f *StatusFlags) { f.PodReadyAfter = "soon" }, false, "soon"},
		{func(f *StatusFlags) { f.Watch = true }, false, ""},
		{func(f *StatusFlags) { f.Watch = true }, true, "status --watch follows one cluster"},
	} {
		f := ok
		tc.set(&f)
		err := f.Validate(tc.contexts)
		if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v contexts=%v: got %v, want %q", f, tc.contexts, err, tc.want)
		}
	}
}

// TestStatusExit: a rollout past its deadline is 3 naming it, --timeout 5, a failed context 1
// with no message, all complete 0.
func TestStatusExit(t *testing.T) {
	done, failed := &status.Status{Name: "a", Phase: status.PhaseComplete}, &status.Status{Name: "b", Phase: status.PhaseFailed}
	for _, tc := range []struct {
		sts            []*status.Status
		timedOut       bool
		failedContexts int
		code           int
		msg            string
	}{
		{[]*status.Status{done, failed}, false, 1, 3, `deployment "b" exceeded its progress deadline`},
		{[]*status.Status{{Name: "c", Phase: status.PhaseProgressing}}, true, 0, 5, "timed out after 1m0s waiting for the rollout to finish"},
		{[]*status.Status{done}, false, 2, 1, ""},
		{[]*status.Status{done}, false, 0, 0, ""},
	} {
		code, msg := StatusExit(tc.sts, tc.timedOut, time.Minute, time.Minute, tc.failedContexts)
		if code != tc.code || msg != tc.msg {
			t.Errorf("%+v: got %d %q, want %d %q", tc, code, msg, tc.code, tc.msg)
		}
	}
}
