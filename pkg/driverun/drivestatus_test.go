package driverun

import (
	"errors"
	"testing"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// TestStatusResultExit: failed Deployments are named (with their context under
// --contexts), a failed context alone exits 1 with no more words, else 0.
func TestStatusResultExit(t *testing.T) {
	failed := []pipeline.Member{{Ref: target.Ref{Namespace: "shop", Name: "web"}, Source: "b", Err: errors.New("forbidden")}}
	for _, tc := range []struct {
		name     string
		r        StatusResult
		wantCode int
		wantMsg  string
	}{
		{"all read", StatusResult{Many: true}, 0, ""},
		{"one failed, -A", StatusResult{Many: true, Failed: failed, WithNamespace: true}, ExitError, "1 Deployment(s) failed: deployment.apps/web (namespace shop)"},
		{"one failed in a context", StatusResult{Many: true, Failed: failed, Contexts: []string{"a", "b"}, ContextErrs: []error{nil, nil}}, ExitError, "1 Deployment(s) failed: deployment.apps/web (context b)"},
		{"a context failed", StatusResult{Many: true, Contexts: []string{"a", "b"}, ContextErrs: []error{errors.New("refused"), nil}}, ExitError, ""},
	} {
		code, msg := tc.r.Exit()
		if code != tc.wantCode || msg != tc.wantMsg {
			t.Errorf("%s: exit %d %q, want %d %q", tc.name, code, msg, tc.wantCode, tc.wantMsg)
		}
	}
}
