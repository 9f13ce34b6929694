package printer

import (
	"errors"
	"strings"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/printers"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// TestPrintFleetHistory: across contexts, each section is headed by its context, a context
// not read and a Deployment not read are one stderr line each, and the failed Deployment is
// named with its context; nothing selected anywhere prints the none line.
func TestPrintFleetHistory(t *testing.T) {
	d := testutil.Deployment("web").Build()
	h := rollout.BuildHistory(d, nil)
	r := pipeline.FleetHistory{
		Histories:   []pipeline.MemberHistory{{Source: "a", History: h}},
		Failed:      []pipeline.Member{{Ref: target.Ref{Namespace: "shop", Name: "api"}, Source: "a", Err: errors.New("forbidden")}},
		Contexts:    []string{"a", "b"},
		ContextErrs: []error{nil, errors.New("connection refused")},
	}
	var out, errOut strings.Builder
	failed, failedContexts, err := PrintFleetHistory(&out, &errOut, nil, r, time.Now(), false, "none")
	if err != nil || failedContexts != 1 || strings.Join(failed, "|") != "deployment.apps/api (context a)" {
		t.Fatalf("got %q %d %v", failed, failedContexts, err)
	}
	if !strings.HasPrefix(out.String(), "Context: a\ndeployment.apps/web") {
		t.Errorf("stdout %q", out.String())
	}
	if want := "error: context b: connection refused\nerror: deployment.apps/api (context a): forbidden\n"; errOut.String() != want {
		t.Errorf("stderr %q, want %q", errOut.String(), want)
	}

	out.Reset()
	errOut.Reset()
	p := &printers.JSONPrinter{}
	if _, _, err := PrintFleetHistory(&out, &errOut, p, pipeline.FleetHistory{}, time.Now(), false, "No resources found"); err != nil {
		t.Fatal(err)
	}
	if errOut.String() != "No resources found\n" || !strings.Contains(out.String(), `"kind": "List"`) {
		t.Errorf("none: stdout %q stderr %q", out.String(), errOut.String())
	}
}
