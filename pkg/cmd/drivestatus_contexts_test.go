package cmd

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestDriveStatusContexts: --all in three contexts, one unreachable: one table, CONTEXT
// first, the contexts in the order given; one stderr line for the unreachable context; exit 1.
func TestDriveStatusContexts(t *testing.T) {
	srv, _ := fakeAPIServer(t)
	kc := historyKubeconfig(t, srv.URL)
	out, errOut, code := runRoot(t, "", "drive", "status", "--all", "--kubeconfig", kc, "--contexts", "ctx-b,down,ctx-a")
	if code != ExitError || !strings.HasPrefix(errOut, "error: context down: ") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("exit %d, stderr %q; want one line for context down, exit 1", code, errOut)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		f := strings.Fields(l)
		got = append(got, strings.Join(f[:3], " "))
	}
	want := "CONTEXT NAMESPACE DEPLOYMENT|ctx-b team-b batch|ctx-a team-a web|ctx-a team-a api|ctx-a team-a worker"
	if strings.Join(got, "|") != want {
		t.Errorf("rows %q, want %q:\n%s", got, want, out)
	}
}

// TestDriveStatusContextsJSON: -o json is one List whose DriveStatus items carry their
// context; one context prints exactly as --context does (no CONTEXT, no context field).
func TestDriveStatusContextsJSON(t *testing.T) {
	srv, _ := fakeAPIServer(t)
	kc := historyKubeconfig(t, srv.URL)
	out, errOut, code := runRoot(t, "", "drive", "status", "--all", "--kubeconfig", kc, "--all-contexts", "-o", "json")
	if code != ExitError || !strings.HasPrefix(errOut, "error: context down: ") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var list struct {
		Kind  string
		Items []struct{ Kind, Context, Name string }
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	var got []string
	for _, it := range list.Items {
		got = append(got, it.Kind+":"+it.Context+"/"+it.Name)
	}
	if list.Kind != "List" || strings.Join(got, " ") != "DriveStatus:ctx-a/web DriveStatus:ctx-a/api DriveStatus:ctx-a/worker DriveStatus:ctx-b/batch" {
		t.Errorf("kind %s, items %v", list.Kind, got)
	}
	one, errOne, codeOne := runRoot(t, "", "drive", "status", "--all", "--kubeconfig", kc, "--contexts", "ctx-b")
	ctx, errCtx, codeCtx := runRoot(t, "", "drive", "status", "--all", "--kubeconfig", kc, "--context", "ctx-b")
	if one != ctx || errOne != errCtx || codeOne != codeCtx || !strings.HasPrefix(one, "NAMESPACE ") {
		t.Errorf("--contexts ctx-b: %d %q %q; --context ctx-b: %d %q %q", codeOne, one, errOne, codeCtx, ctx, errCtx)
	}
}
