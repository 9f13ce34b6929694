package printer

import (
	"bytes"
	"errors"
	"testing"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/manifest"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

func TestChangeCell(t *testing.T) {
	for _, tc := range []struct {
		words string
		plan  *v1alpha1.RolloutPlan
		want  string
	}{
		{"image web=nginx:2", &v1alpha1.RolloutPlan{}, "image web=nginx:2"},
		{"", nil, ""},
		{"", &v1alpha1.RolloutPlan{Outcome: string(planner.OutcomeNoChange)}, "none"},
		{"", &v1alpha1.RolloutPlan{Outcome: string(planner.OutcomeComplete)}, "rollout in flight"},
	} {
		if got := ChangeCell(tc.words, tc.plan); got != tc.want {
			t.Errorf("ChangeCell(%q, %v) = %q, want %q", tc.words, tc.plan, got, tc.want)
		}
	}
}

// TestPrintSetFailures: file errors first, then the failed context, then each failed
// Deployment with its context; the names returned carry the context.
func TestPrintSetFailures(t *testing.T) {
	var b bytes.Buffer
	runs := []SetRun{
		{Context: "eu", Err: errors.New("unreachable")},
		{Context: "us", Results: []manifest.Result{
			{Ref: target.Ref{Namespace: "shop", Name: "web"}, Source: "web.yaml", Err: errors.New("invalid")},
			{Ref: target.Ref{Namespace: "shop", Name: "api"}, Source: "api.yaml"},
		}},
	}
	failed, contexts := PrintSetFailures(&b, []error{errors.New("bad.yaml: no such file")}, runs)
	want := "error: bad.yaml: no such file\nerror: context eu: unreachable\n"
	if got := b.String(); len(got) < len(want) || got[:len(want)] != want {
		t.Fatalf("output:\n%s\nwant it to start with:\n%s", got, want)
	}
	if contexts != 1 || len(failed) != 1 || failed[0] != "deployment.apps/web (context us)" {
		t.Fatalf("failed %q, %d contexts; want [deployment.apps/web (context us)], 1", failed, contexts)
	}
	if got, want := SetFailureMessage(1, failed), "1 Deployment(s) failed: deployment.apps/web (context us); 1 file(s) could not be read"; got != want {
		t.Fatalf("SetFailureMessage = %q, want %q", got, want)
	}
	if got, want := SetFailureMessage(2, nil), "2 file(s) could not be read"; got != want {
		t.Fatalf("SetFailureMessage = %q, want %q", got, want)
	}
}
