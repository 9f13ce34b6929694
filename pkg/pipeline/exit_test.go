package pipeline

import "testing"

// TestFleetExit: a failure wins over a stall; a stall counts only with --fail-on-stall.
func TestFleetExit(t *testing.T) {
	for _, tc := range []struct {
		failed      []string
		stalled     int
		failOnStall bool
		code        int
		msg         string
	}{
		{nil, 0, true, ExitOK, ""},
		{nil, 2, false, ExitOK, ""},
		{nil, 2, true, ExitStalled, ""},
		{[]string{"deployment.apps/web", "deployment.apps/api"}, 1, true, ExitError, "2 Deployment(s) failed: deployment.apps/web, deployment.apps/api"},
	} {
		if code, msg := FleetExit(tc.failed, tc.stalled, tc.failOnStall); code != tc.code || msg != tc.msg {
			t.Errorf("FleetExit(%v, %d, %t) = %d %q, want %d %q", tc.failed, tc.stalled, tc.failOnStall, code, msg, tc.code, tc.msg)
		}
	}
}
