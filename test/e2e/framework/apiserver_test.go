package framework

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func kubeconfigOf(server, token string) string {
	return `apiVersion: v1
kind: Config
clusters:
- name: rollplan-local
  cluster: {server: "` + server + `", insecure-skip-tls-verify: true}
users:
- name: admin
  user: {token: ` + token + `}
contexts:
- name: rollplan-local
  context: {cluster: rollplan-local, user: admin, namespace: default}
current-context: rollplan-local
`
}

func TestWriteKubeconfig(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	writeFile(t, a, kubeconfigOf("https://127.0.0.1:1001", "token-a"))
	writeFile(t, b, kubeconfigOf("https://127.0.0.1:1002", "token-b"))
	out := filepath.Join(dir, "merged")
	down := Unreachable(t, "down")
	if err := WriteKubeconfig(out,
		KubeContext{Name: "main", Kubeconfig: a},
		KubeContext{Name: "second", Kubeconfig: b},
		KubeContext{Name: "proxied", Kubeconfig: b, Server: "https://127.0.0.1:2002"},
		down,
	); err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.LoadFromFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.CurrentContext != "main" {
		t.Errorf("current context %q, want main (the first)", cfg.CurrentContext)
	}
	want := map[string]struct{ server, token string }{
		"main":    {"https://127.0.0.1:1001", "token-a"},
		"second":  {"https://127.0.0.1:1002", "token-b"},
		"proxied": {"https://127.0.0.1:2002", "token-b"},
		"down":    {down.Server, ""},
	}
	if len(cfg.Contexts) != len(want) {
		t.Errorf("%d contexts, want %d", len(cfg.Contexts), len(want))
	}
	for name, w := range want {
		ctx := cfg.Contexts[name]
		if ctx == nil || cfg.Clusters[ctx.Cluster] == nil || cfg.AuthInfos[ctx.AuthInfo] == nil {
			t.Errorf("context %s missing or incomplete: %+v", name, ctx)
			continue
		}
		if got := cfg.Clusters[ctx.Cluster].Server; got != w.server {
			t.Errorf("context %s: server %s, want %s", name, got, w.server)
		}
		if got := cfg.AuthInfos[ctx.AuthInfo].Token; got != w.token {
			t.Errorf("context %s: token %q, want %q", name, got, w.token)
		}
	}
	if !strings.HasPrefix(down.Server, "https://127.0.0.1:") {
		t.Fatalf("Unreachable server %s, want a loopback https URL", down.Server)
	}
	if c, err := net.DialTimeout("tcp", strings.TrimPrefix(down.Server, "https://"), time.Second); err == nil {
		_ = c.Close()
		t.Errorf("Unreachable's port %s accepts connections", down.Server)
	}
	if err := WriteKubeconfig(out, KubeContext{Name: "x", Kubeconfig: filepath.Join(dir, "missing")}); err == nil {
		t.Error("a missing kubeconfig: no error")
	}
}
