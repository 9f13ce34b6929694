package cmd

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
)

// oneClusterKubeconfig writes a kubeconfig whose contexts a and b both point at server.
func oneClusterKubeconfig(t *testing.T, server string) string {
	t.Helper()
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: s
  cluster: {server: %q}
contexts:
- name: a
  context: {cluster: s, user: u, namespace: ns-a}
- name: b
  context: {cluster: s, user: u, namespace: ns-b}
users:
- name: u
  user: {token: t}
current-context: a
`, server)
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestWritingVerbsRefuseManyContexts(t *testing.T) {
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		http.Error(w, "no", http.StatusForbidden)
	}))
	defer srv.Close()
	kc := oneClusterKubeconfig(t, srv.URL)
	for _, verb := range pipeline.WritingVerbs {
		for _, flags := range [][]string{{"--contexts", "a,b"}, {"--all-contexts"}} {
			t.Run(verb+strings.Join(flags, ""), func(t *testing.T) {
				var out, errOut bytes.Buffer
				root := NewCmdRollplan(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
				root.SetArgs(append([]string{verb, "web", "--kubeconfig", kc}, flags...))
				err := root.Execute()
				if err == nil {
					t.Fatalf("%s with two contexts: no error", verb)
				}
				want := verb + " writes to one cluster: --contexts names 2 contexts (a, b); run it once per context with --context"
				if err.Error() != want {
					t.Fatalf("error:\n got %q\nwant %q", err, want)
				}
				if n := requests.Load(); n != 0 {
					t.Fatalf("%d requests sent before the refusal", n)
				}
				if out.Len() != 0 {
					t.Fatalf("stdout: %q", out.String())
				}
			})
		}
	}
}

// With one context, a writing verb runs as with --context: its request goes to that
// context's namespace.
func TestWritingVerbOneContextIsContext(t *testing.T) {
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.URL.Path)
		http.Error(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`, http.StatusNotFound)
	}))
	defer srv.Close()
	kc := oneClusterKubeconfig(t, srv.URL)
	var out, errOut bytes.Buffer
	root := NewCmdRollplan(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	root.SetArgs([]string{"pause", "web", "--kubeconfig", kc, "--contexts", "b"})
	if err := root.Execute(); err == nil {
		t.Fatal("pause of a missing Deployment: no error")
	}
	if len(paths) == 0 || !strings.Contains(paths[0], "/namespaces/ns-b/") {
		t.Fatalf("requests %v: want the first in context b's namespace ns-b", paths)
	}
}
