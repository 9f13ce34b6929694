package printer

import (
	"errors"
	"strings"
	"testing"

	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/drive"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
)

// The strings below are the bytes pkg/cmd printed before these renderers moved here
// (captured from the old code path, then compared byte for byte with the new one).

func TestPrintResult(t *testing.T) {
	for _, tc := range []struct {
		operation string
		dryRun    cmdutil.DryRunStrategy
		want      string
	}{
		{"paused", cmdutil.DryRunNone, "deployment.apps/web paused\n"},
		{"paused", cmdutil.DryRunClient, "deployment.apps/web paused (dry run)\n"},
		{"paused", cmdutil.DryRunServer, "deployment.apps/web paused (server dry run)\n"},
		{"handed back by drive", cmdutil.DryRunClient, "deployment.apps/web handed back by drive (dry run)\n"},
		{"skipped rollback (current template already matches revision 1)", cmdutil.DryRunNone,
			"deployment.apps/web skipped rollback (current template already matches revision 1)\n"},
	} {
		var out strings.Builder
		if err := PrintResult(&out, "web", tc.operation, tc.dryRun); err != nil {
			t.Fatal(err)
		}
		if out.String() != tc.want {
			t.Errorf("PrintResult(%q, %v) = %q, want %q", tc.operation, tc.dryRun, out.String(), tc.want)
		}
	}
}

func TestPrintGuardResult(t *testing.T) {
	var out strings.Builder
	if err := PrintGuardResult(&out, drive.GuardName, "installed"); err != nil {
		t.Fatal(err)
	}
	want := "validatingadmissionpolicy.admissionregistration.k8s.io/" + drive.GuardName + " and its binding installed\n"
	if out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

func TestPrintWarnings(t *testing.T) {
	var out strings.Builder
	PrintWarnings(&out, "w one", "w two")
	PrintGuardWarning(&out, true, nil)
	PrintGuardWarning(&out, false, nil)
	PrintGuardWarning(&out, false, errors.New("forbidden"))
	want := "warning: w one\nwarning: w two\n" +
		"warning: the guard is not installed: unpausing a held Deployment (kubectl rollout resume) would make the controller scale every old ReplicaSet to 0 at once; `kubectl rollplan guard install` refuses that edit\n" +
		"warning: cannot tell whether the guard is installed (forbidden)\n"
	if out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

func TestPrintLastAppliedWarning(t *testing.T) {
	var out strings.Builder
	PrintLastAppliedWarning(&out, "web")
	want := "Warning: resource deployment.apps/web was previously managed with 'kubectl apply'. " +
		"Rolling back will not update the kubectl.kubernetes.io/last-applied-configuration annotation, which may cause unexpected behavior on future 'kubectl apply' operations. " +
		"Consider using 'kubectl apply' with your previous configuration file instead.\n"
	if out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

func TestPrintPatch(t *testing.T) {
	body := []byte(`{"spec":{"template":{"metadata":{"labels":{"app":"web"}}}}}`)
	for format, want := range map[string]string{
		"json": string(body) + "\n",
		"yaml": "spec:\n  template:\n    metadata:\n      labels:\n        app: web\n",
	} {
		var out strings.Builder
		if err := PrintPatch(&out, body, format); err != nil {
			t.Fatal(err)
		}
		if out.String() != want {
			t.Errorf("%s: got %q, want %q", format, out.String(), want)
		}
	}
}

func TestPrintNotes(t *testing.T) {
	var out strings.Builder
	PrintNotes(&out)
	PrintNotes(&out, "a", "b")
	if want := "\na\nb\n\n"; out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

func TestPrintTemplateDiff(t *testing.T) {
	from, to := "revision 2 (replicaset web-a)", "revision 5 (replicaset web-b)"
	var out strings.Builder
	if err := PrintTemplateDiff(&out, to, to, ""); err != nil {
		t.Fatal(err)
	}
	d := rollout.UnifiedDiff(from, to, "image: nginx:1.19\n", "image: nginx:1.20\n")
	if err := PrintTemplateDiff(&out, from, to, d); err != nil {
		t.Fatal(err)
	}
	want := to + " and " + to + " have the same pod template (pod-template-hash aside).\n" +
		"--- " + from + "\n+++ " + to + "\n@@ -1 +1 @@\n-image: nginx:1.19\n+image: nginx:1.20\n"
	if out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

func TestPrintDriveDryRun(t *testing.T) {
	tk := takeover(t, "25%", "25%")
	c, err := drive.Compare(tk)
	if err != nil {
		t.Fatal(err)
	}
	var comparison strings.Builder
	if err := PrintComparison(&comparison, c); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := PrintNothingToDo(&out, &drive.NothingToDoError{Msg: "deployment default/web is rolled out already"}); err != nil {
		t.Fatal(err)
	}
	if err := PrintDriveDryRunComparison(&out, c); err != nil {
		t.Fatal(err)
	}
	if err := PrintDryRunEnd(&out, true); err != nil {
		t.Fatal(err)
	}
	if err := PrintDryRunEnd(&out, false); err != nil {
		t.Fatal(err)
	}
	if err := PrintDriveDryRunHeld(&out); err != nil {
		t.Fatal(err)
	}
	want := "deployment default/web is rolled out already\n" +
		"\n" + comparison.String() +
		"\nserver dry run: the API server accepts the takeover write\n(dry run: nothing changed)\n" +
		"(dry run: nothing changed)\n" +
		"(dry run: the Deployment is held already; nothing changed)\n"
	if out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

func TestPrintHandBackPreview(t *testing.T) {
	st := heldState(t, drive.PhaseForward, "", driveNow)
	after, err := drive.HandBackPreview(st.Deployment, st.ReplicaSets)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := rollout.Plan(after, st.ReplicaSets, planner.ReadinessBatched)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := PrintHandBackPreview(&out, "default", "web", drive.Held(st.Deployment, driveNow), after, plan, PlanOptions{ChartWidth: 30}); err != nil {
		t.Fatal(err)
	}
	header := "deployment default/web is held by kubectl rollplan drive at step 1 of 3 (no driver running): resume hands it back to the controller where it stands (strategy RollingUpdate maxSurge 25%, maxUnavailable 25%, paused false); the controller then makes:\n\n"
	if !strings.HasPrefix(out.String(), header) || !strings.HasSuffix(out.String(), "\n\n") {
		t.Errorf("hand-back preview:\n%s", out.String())
	}
	testutil.Golden(t, "hand-back-preview", []byte(out.String()))
}
