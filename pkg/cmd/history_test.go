package cmd

import (
	"time"

	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/utils/exec"
	testingexec "k8s.io/utils/exec/testing"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
)

func newHistoryTest(t *testing.T) (*HistoryOptions, *strings.Builder) {
	t.Helper()
	d, rss := webFixture()
	streams, _, _ := testStreams()
	o := NewHistoryOptions(streams)
	o.Namespace, o.Name = "default", "web"
	o.Client = clientOf(fakeClient(d, rss))
	o.Now = func() time.Time { return historyNow }
	o.Getenv = func(string) string { return "" }
	sb := &strings.Builder{}
	o.Out = sb
	return o, sb
}

func TestHistoryGolden(t *testing.T) {
	cases := []struct {
		name string
		set  func(o *HistoryOptions)
	}{
		{"table", func(o *HistoryOptions) {}},
		{"revision-3", func(o *HistoryOptions) { o.Revision = 3 }},
		{"diff-default", func(o *HistoryOptions) { o.Diff = true }},
		{"diff-2-4", func(o *HistoryOptions) { o.Diff, o.DiffFrom, o.DiffTo = true, 2, 4 }},
		{"yaml", func(o *HistoryOptions) { o.Output.Output = "yaml" }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o, out := newHistoryTest(t)
			tc.set(o)
			if err := o.Validate(); err != nil {
				t.Fatal(err)
			}
			mustRun(t, o.Run)
			testutil.Golden(t, "history-"+tc.name, []byte(out.String()))
		})
	}
}

func TestHistoryJSON(t *testing.T) {
	o, out := newHistoryTest(t)
	o.Output.Output = "json"
	mustRun(t, o.Run)
	var h v1alpha1.RolloutHistory
	if err := json.Unmarshal([]byte(out.String()), &h); err != nil {
		t.Fatal(err)
	}
	var revs []int64
	for _, r := range h.Revisions {
		revs = append(revs, r.Revision)
	}
	if h.Kind != "RolloutHistory" || h.APIVersion != "rollplan.dev/v1alpha1" || *h.Deployment.CurrentRevision != 5 {
		t.Errorf("kind %q apiVersion %q current %d", h.Kind, h.APIVersion, *h.Deployment.CurrentRevision)
	}
	if diff := cmp.Diff([]int64{2, 3, 4, 5}, revs); diff != "" {
		t.Errorf("revisions (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int64{2}, h.CleanupAtNextRollout); diff != "" {
		t.Errorf("cleanup (-want +got):\n%s", diff)
	}
	if !h.Revisions[1].Restart || h.Revisions[2].EarlierRevisions[0] != 1 {
		t.Errorf("revision 3 restart %v, revision 4 earlier %v", h.Revisions[1].Restart, h.Revisions[2].EarlierRevisions)
	}
}

func TestHistoryExternalDiff(t *testing.T) {
	o, _ := newHistoryTest(t)
	o.Diff = true
	o.Getenv = func(k string) string {
		if k == "KUBECTL_EXTERNAL_DIFF" {
			return "meld --color=auto -x; rm"
		}
		return ""
	}
	var gotCmd string
	var gotArgs []string
	fakeExec := &testingexec.FakeExec{CommandScript: []testingexec.FakeCommandAction{
		func(cmd string, args ...string) exec.Cmd {
			gotCmd, gotArgs = cmd, args
			return &testingexec.FakeCmd{RunScript: []testingexec.FakeAction{
				func() ([]byte, []byte, error) { return nil, nil, &testingexec.FakeExitError{Status: 1} },
			}}
		},
	}}
	o.Exec = fakeExec
	mustRun(t, o.Run)
	// kubectl keeps only arguments of letters, digits, '-' and '=': "-x;" and "rm" go... "rm"
	// stays (it is alphanumeric), "-x;" does not.
	if gotCmd != "meld" || len(gotArgs) != 4 || gotArgs[0] != "--color=auto" || gotArgs[1] != "rm" ||
		!strings.Contains(gotArgs[2], "FROM-") || !strings.Contains(gotArgs[3], "TO-") {
		t.Errorf("ran %q %q", gotCmd, gotArgs)
	}
}

func TestHistoryBadInput(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"negative revision", []string{"history", "deploy/web", "--revision", "-1"}, "error: --revision -1: revisions are positive numbers\n"},
		{"not a Deployment", []string{"history", "rs/web"}, "error: rollplan works on Deployments; got replicasets\n"},
		{"revision and diff", []string{"history", "web", "--revision", "2", "--diff"}, "error: --revision and --diff do not go together: use --diff A B\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runRoot(t, "", tc.args...)
			if code != ExitError || errOut != tc.want || out != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want 1, nothing, %q", code, out, errOut, tc.want)
			}
		})
	}
	t.Run("unknown revision", func(t *testing.T) {
		o, out := newHistoryTest(t)
		o.Revision = 9
		code, msg := exit(o.Run)
		want := "error: unable to find the specified revision 9: revisions of deployment \"web\" are 2, 3, 4, 5\n"
		if code != ExitError || msg != want || out.Len() != 0 {
			t.Errorf("exit %d %q stdout %q; want 1 %q", code, msg, out.String(), want)
		}
	})
}
