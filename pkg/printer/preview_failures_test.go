package printer

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// TestPrintFailures: each failed Deployment of a selection is one line, in order, and its
// name comes back in the same form (with the namespace under -A) for the exit's last line.
func TestPrintFailures(t *testing.T) {
	failed := []pipeline.Member{
		{Ref: target.Ref{Namespace: "shop", Name: "web"}, Err: errors.New(`deployments.apps "web" not found`)},
		{Ref: target.Ref{Namespace: "bank", Name: "ledger"}, Err: errors.New("forbidden")},
	}
	var b strings.Builder
	names := PrintFailures(&b, failed, true)
	wantOut := "error: deployment.apps/web (namespace shop): deployments.apps \"web\" not found\n" +
		"error: deployment.apps/ledger (namespace bank): forbidden\n"
	if b.String() != wantOut {
		t.Errorf("got %q, want %q", b.String(), wantOut)
	}
	if d := cmp.Diff([]string{"deployment.apps/web (namespace shop)", "deployment.apps/ledger (namespace bank)"}, names); d != "" {
		t.Errorf("names (-want +got):\n%s", d)
	}
	b.Reset()
	if names := PrintFailures(&b, failed[1:], false); b.String() != "error: deployment.apps/ledger: forbidden\n" || names[0] != "deployment.apps/ledger" {
		t.Errorf("one namespace: %q, %q", b.String(), names)
	}
}
