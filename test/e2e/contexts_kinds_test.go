//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestContextsSetKinds previews a manifest set holding a StatefulSet across main (where it
// runs 3 pods of nginx:1.18, rolled out by the controller) and second (where it does not
// exist): each context gets its own plan, named by its context: main replaces the three pods
// one by one, highest ordinal first; second creates them. The human output has the CONTEXT
// column.
func TestContextsSetKinds(t *testing.T) {
	f := newContextsFixture(t)
	createSettledSts(t, f.c, f.ns, "kset")
	set := filepath.Join(t.TempDir(), "set.yaml")
	manifest := `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: kset, namespace: ` + f.ns + `}
spec:
  replicas: 3
  serviceName: kset
  selector: {matchLabels: {app: kset}}
  template:
    metadata: {labels: {app: kset}}
    spec:
      containers: [{name: app, image: nginx:1.19}]
      nodeSelector: {type: kwok}
      tolerations: [{operator: Exists}]
`
	if err := os.WriteFile(set, []byte(manifest), 0o600); err != nil {
		t.Fatal(err)
	}
	l, _ := f.previewJSON(t, 0, "-f", set, "--contexts", ctxMain+","+ctxSecond)
	got := byContext(l)
	ops := func(ctx string) string {
		if len(got[ctx]) != 1 {
			t.Fatalf("context %s: %d plans, want 1", ctx, len(got[ctx]))
		}
		var out []string
		for _, op := range got[ctx][0].PodOperations {
			out = append(out, op.Action+" "+op.Pod)
		}
		return strings.Join(out, ", ")
	}
	if m := ops(ctxMain); m != "Delete kset-2, Create kset-2, Delete kset-1, Create kset-1, Delete kset-0, Create kset-0" {
		t.Errorf("main: %s", m)
	}
	if s := ops(ctxSecond); s != "Create kset-0, Create kset-1, Create kset-2" {
		t.Errorf("second: %s", s)
	}
	res := f.plugin(t, "preview", "-n", f.ns, "-f", set, "--contexts", ctxMain+","+ctxSecond)
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "CONTEXT") || !strings.Contains(res.Stdout, "context second: statefulset/kset") {
		t.Errorf("human (exit %d):\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
}
