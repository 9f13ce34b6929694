package printer

import (
	"context"
	"errors"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/drive"
	"github.com/rollplan/kubectl-rollplan/pkg/reload"
	"github.com/rollplan/kubectl-rollplan/pkg/reloadoneshot"
)

func newReloadRunTest(output string) (*ReloadRun, *strings.Builder, *strings.Builder, *[]string) {
	out, errOut := &strings.Builder{}, &strings.Builder{}
	asked := &[]string{}
	f := NewReloadOutputFlags()
	f.Output = output
	return &ReloadRun{Out: out, ErrOut: errOut, Output: f, Terminal: func() bool { return true },
		Ask: func(q string) bool { *asked = append(*asked, q); return true }}, out, errOut, asked
}

// TestReloadRunConfirm: one question, its verb and noun from --adopt and the kinds; --yes
// asks nothing; without a terminal it refuses, naming --yes.
func TestReloadRunConfirm(t *testing.T) {
	r, _, _, asked := newReloadRunTest("")
	if ok, err := r.Confirm(2, false); !ok || err != nil {
		t.Fatalf("Confirm = %v, %v", ok, err)
	}
	r.Adopt = true
	_, _ = r.Confirm(3, true)
	if want := []string{"\nrestart 2 deployment(s)? [y/N]: ", "\nrecord the checksums of 3 workload(s)? [y/N]: "}; strings.Join(*asked, "|") != strings.Join(want, "|") {
		t.Errorf("asked %q, want %q", *asked, want)
	}
	r.Yes, *asked = true, nil
	if ok, err := r.Confirm(1, false); !ok || err != nil || len(*asked) != 0 {
		t.Errorf("--yes: %v %v, asked %q", ok, err, *asked)
	}
	r.Yes, r.Terminal = false, func() bool { return false }
	if ok, err := r.Confirm(1, false); ok || err == nil || !strings.Contains(err.Error(), "pass --yes") {
		t.Errorf("no terminal: %v %v", ok, err)
	}
}

// TestReloadRunResults: the result lines (with the dry-run suffix) on stdout, or on stderr
// with -o (stdout holds the list alone); "Nothing to restart." likewise; the refusal to
// confirm on stderr.
func TestReloadRunResults(t *testing.T) {
	web := &reloadoneshot.Target{Action: reload.ActionRestart, State: &cluster.State{
		Deployment: &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}}}}
	results := []reloadoneshot.Result{{Target: web}, {Target: web, Err: errors.New("timed out")}}
	r, out, errOut, _ := newReloadRunTest("")
	r.DryRun = cmdutil.DryRunServer
	r.Restarted(results)
	r.KindsWritten(nil)
	r.Declined()
	if out.String() != "\ndeployment.apps/web restarted (server dry run)\n" || errOut.String() != "Not confirmed: nothing was written.\n" {
		t.Errorf("human: stdout %q, stderr %q", out, errOut)
	}
	r, out, errOut, _ = newReloadRunTest("json")
	r.Restarted(results[:1])
	r.Nothing()
	if out.Len() != 0 || errOut.String() != "\ndeployment.apps/web restarted\n\nNothing to restart.\n" {
		t.Errorf("-o json: stdout %q, stderr %q", out, errOut)
	}
}

// TestReloadRunContexts: no target, one context failed: the table's empty form on stdout,
// one line naming the failed context on stderr (the first line of its error).
func TestReloadRunContexts(t *testing.T) {
	r, out, errOut, _ := newReloadRunTest("")
	res := &reloadoneshot.Contexts{Names: []string{"east", "down"}, Failed: []string{"down"}, Errs: []error{errors.New("connection refused\ngoroutine 1 [running]")}}
	if err := r.Contexts(&reloadoneshot.Config{}, res); err != nil {
		t.Fatal(err)
	}
	if errOut.String() != "error: context down: connection refused\n" || strings.Contains(out.String(), "Nothing was written") {
		t.Errorf("stdout %q, stderr %q", out, errOut)
	}
}

// TestReloadRunDriveWalk: --drive asks before each step on a terminal, not with --yes, and
// refuses without a terminal.
func TestReloadRunDriveWalk(t *testing.T) {
	step := func(context.Context, drive.StepInfo) (drive.Answer, error) { return drive.AnswerContinue, nil }
	r, _, _, _ := newReloadRunTest("")
	if progress, confirm, err := r.DriveWalk(step)(); progress == nil || confirm == nil || err != nil {
		t.Errorf("terminal: progress %v, confirm %v, %v", progress != nil, confirm != nil, err)
	}
	r.Yes = true
	if _, confirm, err := r.DriveWalk(step)(); confirm != nil || err != nil {
		t.Errorf("--yes: confirm %v, %v", confirm != nil, err)
	}
	r.Yes, r.Terminal = false, func() bool { return false }
	if _, _, err := r.DriveWalk(step)(); err == nil || !strings.Contains(err.Error(), "pass --yes") {
		t.Errorf("no terminal: %v", err)
	}
}
