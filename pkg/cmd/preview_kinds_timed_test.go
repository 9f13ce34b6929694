package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
)

// TestPreviewDaemonSetTimed: preview ds/agent --readiness timed from testdata/kinds-state.yaml
// (one node, maxUnavailable 1), pods Ready 4s after creation, 1s per write: the delete at 0s,
// the create at 1s, the new pod available at 5s; the human plan has the times and the ETA.
func TestPreviewDaemonSetTimed(t *testing.T) {
	args := []string{"preview", "ds/agent", "-n", "ks1", "--state-file", "testdata/kinds-state.yaml", "--image", "app=nginx:1.19",
		"--readiness", "timed", "--pod-ready-after", "4s", "--sync-latency", "1s"}
	out, errOut, code := runRoot(t, "", append(args, "-o", "json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var p v1alpha1.RolloutPlan
	if err := json.Unmarshal([]byte(out), &p); err != nil || p.Duration == nil || p.Timing == nil {
		t.Fatalf("want a timed RolloutPlan: %v\n%s", err, out)
	}
	var got []string
	for _, op := range p.PodOperations {
		got = append(got, fmt.Sprintf("%s %s at %s", op.Action, op.Node, op.At.Duration))
	}
	if d := cmp.Diff([]string{"Delete fake-node-1 at 0s", "Create fake-node-1 at 1s"}, got); d != "" || p.Duration.Duration.String() != "5s" {
		t.Errorf("duration %s; operations (-want +got):\n%s", p.Duration.Duration, d)
	}
	out, _, code = runRoot(t, "", args...)
	for _, want := range []string{"sync 2 (at 1s): Create (new pod) on node fake-node-1", "ETA:    5s after the change: the daemonset is complete"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("human output (exit %d) lacks %q:\n%s", code, want, out)
		}
	}
}

// TestPreviewSetKindsTimed: preview -f SET --readiness timed gives the set's DaemonSet its
// duration and times as preview ds/agent does.
func TestPreviewSetKindsTimed(t *testing.T) {
	dir := t.TempDir()
	manifest := `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: ks1}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers: [{name: app, image: "nginx:1.19"}]
`
	if err := os.WriteFile(filepath.Join(dir, "ds.yaml"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runRoot(t, "", "preview", "-n", "ks1", "-f", dir, "--state-file", "testdata/kinds-state.yaml",
		"--readiness", "timed", "--pod-ready-after", "4s", "--sync-latency", "1s", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var l v1alpha1.RolloutPlanList
	if err := json.Unmarshal([]byte(out), &l); err != nil || len(l.Items) != 1 {
		t.Fatalf("want a RolloutPlanList of 1: %v\n%s", err, out)
	}
	p := l.Items[0]
	if p.Duration == nil || p.Duration.Duration.String() != "5s" || p.Timing == nil || len(p.PodOperations) != 2 || p.PodOperations[1].At == nil {
		t.Errorf("plan: duration %v, timing %v, operations %+v; want 5s, the timing, 2 timed operations", p.Duration, p.Timing, p.PodOperations)
	}
}
