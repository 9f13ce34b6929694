package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// historyKubeconfig is kubeconfig's ctx-a (namespace team-a: web, api, worker) and ctx-b
// (team-b: batch) on server, and down, whose server is a closed port.
func historyKubeconfig(t *testing.T, server string) string {
	t.Helper()
	cfg := `apiVersion: v1
kind: Config
clusters:
- {name: fake, cluster: {server: "` + server + `"}}
- {name: down, cluster: {server: "http://127.0.0.1:1"}}
users:
- {name: tester, user: {}}
contexts:
- {name: ctx-a, context: {cluster: fake, user: tester, namespace: team-a}}
- {name: ctx-b, context: {cluster: fake, user: tester, namespace: team-b}}
- {name: down, context: {cluster: down, user: tester, namespace: team-a}}
current-context: ctx-a
`
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestHistoryContexts: --all in three contexts, one unreachable: each context's Deployments
// with a Context header, in the order given; one stderr line for the unreachable context;
// exit 1.
func TestHistoryContexts(t *testing.T) {
	srv, _ := fakeAPIServer(t)
	kc := historyKubeconfig(t, srv.URL)
	out, errOut, code := runRoot(t, "", "history", "--all", "--kubeconfig", kc, "--contexts", "ctx-b,down,ctx-a")
	if code != ExitError || !strings.HasPrefix(errOut, "error: context down: ") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("exit %d, stderr %q; want one line for context down, exit 1", code, errOut)
	}
	if got := strings.Count(out, "Context: ctx-a\n"); got != 3 {
		t.Errorf("%d sections of ctx-a, want 3 (web, api, worker):\n%s", got, out)
	}
	b, a := strings.Index(out, "Context: ctx-b\n"), strings.Index(out, "Context: ctx-a\n")
	if b != 0 || a < b {
		t.Errorf("ctx-b's section at %d, ctx-a's at %d; want ctx-b first:\n%s", b, a, out)
	}
}

// TestHistoryContextsJSON: -o json is one List whose items carry their context.
func TestHistoryContextsJSON(t *testing.T) {
	srv, _ := fakeAPIServer(t)
	kc := historyKubeconfig(t, srv.URL)
	out, errOut, code := runRoot(t, "", "history", "--all", "--kubeconfig", kc, "--contexts", "ctx-a,ctx-b", "-o", "json")
	if code != ExitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var list struct {
		Kind  string
		Items []struct {
			Context    string
			Deployment struct{ Name string }
		}
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	var got []string
	for _, it := range list.Items {
		got = append(got, it.Context+"/"+it.Deployment.Name)
	}
	if list.Kind != "List" || strings.Join(got, " ") != "ctx-a/web ctx-a/api ctx-a/worker ctx-b/batch" {
		t.Errorf("kind %s, items %v", list.Kind, got)
	}
}

// TestHistoryOneContext: --contexts with one context prints exactly what --context prints;
// the refusals hold before any request.
func TestHistoryOneContext(t *testing.T) {
	srv, seen := fakeAPIServer(t)
	kc := historyKubeconfig(t, srv.URL)
	for _, args := range [][]string{{"--all"}, {"batch", "-o", "json"}, {"batch", "--revision", "1"}} {
		want, wantErr, wantCode := runRoot(t, "", append([]string{"history", "--kubeconfig", kc, "--context", "ctx-b"}, args...)...)
		got, gotErr, gotCode := runRoot(t, "", append([]string{"history", "--kubeconfig", kc, "--contexts", "ctx-b"}, args...)...)
		if got != want || gotErr != wantErr || gotCode != wantCode || strings.Contains(got, "ontext") {
			t.Errorf("%v: --contexts ctx-b printed (exit %d)\n%s%s\n--context ctx-b (exit %d)\n%s%s", args, gotCode, got, gotErr, wantCode, want, wantErr)
		}
	}
	*seen = nil
	for _, tc := range []struct {
		args    []string
		wantErr string
	}{
		{[]string{"web", "--contexts", "ctx-a,nope"}, `error: --contexts: context "nope" is not in the kubeconfig`},
		{[]string{"web", "--contexts", "ctx-a,ctx-b", "--context", "ctx-a"}, "error: --context and --contexts/--all-contexts"},
		{[]string{"web", "--contexts", "ctx-a,ctx-b", "--revision", "1"}, "error: --revision and --diff show one Deployment's revisions"},
		{[]string{"web", "--all-contexts", "--state-file", "x.yaml"}, "error: --state-file is one cluster's state"},
	} {
		_, errOut, code := runRoot(t, "", append([]string{"history", "--kubeconfig", kc}, tc.args...)...)
		if code != ExitError || !strings.HasPrefix(errOut, tc.wantErr) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: exit %d, %q; want one line starting %q", tc.args, code, errOut, tc.wantErr)
		}
	}
	if len(*seen) != 0 {
		t.Errorf("requests sent before the refusal: %v", *seen)
	}
}
