package cmd

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestReloadContexts: reload of one name in two contexts and an unreachable one shows one
// table, CONTEXT first, asks nothing (the fake API server answers reads only), names the
// unreachable context on stderr and exits 1; --yes across contexts is refused; -o json items
// carry their context.
func TestReloadContexts(t *testing.T) {
	srv, _ := fakeAPIServer(t)
	kc := historyKubeconfig(t, srv.URL)
	out, errOut, code := runRoot(t, "", "reload", "deploy/web", "-n", "team-a", "--kubeconfig", kc, "--contexts", "ctx-b,down,ctx-a")
	if code != ExitError || !strings.HasPrefix(errOut, "error: context down: ") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("exit %d, stderr %q; want one line for context down, exit 1", code, errOut)
	}
	lines := strings.Split(out, "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[0], "CONTEXT ") || !strings.HasPrefix(lines[1], "ctx-b ") || !strings.HasPrefix(lines[2], "ctx-a ") {
		t.Errorf("want CONTEXT first, then ctx-b's web and ctx-a's:\n%s", out)
	}
	_, _, code = runRoot(t, "", "reload", "deploy/web", "--yes", "--kubeconfig", kc, "--all-contexts")
	if code != ExitError {
		t.Errorf("--yes across contexts: exit %d, want refused", code)
	}
	jsonOut, _, _ := runRoot(t, "", "reload", "deploy/web", "-n", "team-a", "--kubeconfig", kc, "--contexts", "ctx-a,ctx-b", "-o", "json")
	var list struct{ Items []struct{ Context string } }
	if err := json.Unmarshal([]byte(jsonOut), &list); err != nil || len(list.Items) != 2 || list.Items[0].Context != "ctx-a" || list.Items[1].Context != "ctx-b" {
		t.Errorf("-o json: %v %+v:\n%s", err, list, jsonOut)
	}
}
