package previewrun

import (
	"errors"
	"testing"
)

func TestExits(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		code int
		msg  string
	}{
		{"nothing failed", FleetExit(nil, 2, false), 0, ""},
		{"stalled, --fail-on-stall", FleetExit(nil, 1, true), CodeStalled, ""},
		{"a failure wins over a stall", FleetExit([]string{"deployment.apps/a", "deployment.apps/b"}, 1, true), CodeError, "2 Deployment(s) failed: deployment.apps/a, deployment.apps/b"},
		{"set: only a context failed", SetExit(0, nil, 1, true, true), CodeError, ""},
		{"set: stalled", SetExit(0, nil, 0, true, true), CodeStalled, ""},
		{"set: stalled, no --fail-on-stall", SetExit(0, nil, 0, true, false), 0, ""},
		{"set: a file and a Deployment failed", SetExit(1, []string{"deployment.apps/web"}, 0, true, true), CodeError, "1 Deployment(s) failed: deployment.apps/web; 1 file(s) could not be read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var e *Exit
			switch {
			case tc.code == 0 && tc.err != nil:
				t.Fatalf("got %v, want no exit", tc.err)
			case tc.code == 0:
			case !errors.As(tc.err, &e):
				t.Fatalf("got %v, want exit code %d", tc.err, tc.code)
			case e.Code != tc.code || e.Message != tc.msg:
				t.Errorf("got code %d %q, want %d %q", e.Code, e.Message, tc.code, tc.msg)
			}
		})
	}
}
