package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPreviewSetContextsKinds: a manifest set holding only a StatefulSet new to both clusters,
// previewed in east and west: one row per context under the CONTEXT column, each plan creating
// the three pods in ordinal order, headed by its context.
func TestPreviewSetContextsKinds(t *testing.T) {
	t.Parallel()
	set := filepath.Join(t.TempDir(), "set.yaml")
	manifest := `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: kv, namespace: shop}
spec:
  replicas: 3
  serviceName: kv
  selector: {matchLabels: {app: kv}}
  template:
    metadata: {labels: {app: kv}}
    spec: {containers: [{name: app, image: kv:2}]}
`
	if err := os.WriteFile(set, []byte(manifest), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runContexts(t, contextFakes(), "preview", "-f", set, "--contexts", "west,east")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	for _, want := range []string{"CONTEXT", "west      shop        statefulset/kv", "east      shop        statefulset/kv",
		"context west: statefulset/kv (namespace shop)", "context east: statefulset/kv (namespace shop)", "Create kv-2"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Index(out, "context west:") > strings.Index(out, "context east:") {
		t.Errorf("plans not in the order of --contexts:\n%s", out)
	}
}
