//go:build e2e

package e2e

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// TestPreviewKindsTimedDaemonSet: the timed model of a DaemonSet on 3 private kwok nodes
// (maxUnavailable 1: one node at a time; pods Ready 2 s after kwok sees them scheduled), with
// creation-to-Ready measured on its own pods, predicts the rollout's duration within 25% (or
// 2 s) of the one measured from the update until every node runs an updated, available pod.
// Not parallel: it adds nodes (framework.PrivateNode) and measures time.
func TestPreviewKindsTimedDaemonSet(t *testing.T) {
	c := framework.Get(t)
	ns := c.Namespace(t)
	const poolKey = "rollplan.test/pool"
	pool := "dst-" + ns
	for _, node := range []string{pool + "-a", pool + "-b", pool + "-c"} {
		c.PrivateNode(t, node)
		patch := `{"metadata":{"labels":{"` + poolKey + `":"` + pool + `"}}}`
		if _, err := c.Client.CoreV1().Nodes().Patch(t.Context(), node, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Fatalf("label node %s: %v", node, err)
		}
	}
	tmpl := kindsPodTemplate("agent", "nginx:1.18")
	tmpl.Spec.NodeSelector = map[string]string{poolKey: pool}
	tmpl.Spec.Tolerations = []corev1.Toleration{{Key: framework.PrivateNodeKey, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}
	framework.SetReadyAfter(&tmpl, 2*time.Second, 0)
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: ns},
		Spec: appsv1.DaemonSetSpec{Template: tmpl, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "agent"}}}}
	if _, err := c.Client.AppsV1().DaemonSets(ns).Create(t.Context(), ds, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kindRolledOut(t, c, ns, "ds/agent")
	// 6 pod operations: a delete and a create on each of 3 nodes
	timedPredictionMatches(t, c, ns, "ds", "agent", 6, 45*time.Second, func() (bool, any) {
		d, err := c.Client.AppsV1().DaemonSets(ns).Get(t.Context(), "agent", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		st := d.Status
		return st.ObservedGeneration == d.Generation && st.DesiredNumberScheduled == 3 && st.UpdatedNumberScheduled == 3 && st.NumberAvailable == 3, st
	})
}

// TestPreviewSetTimedStatefulSet: `preview -f SET --readiness timed` times the set's
// StatefulSet as preview sts/NAME does (pods Ready measured on its own pods): a duration,
// every operation's time, the timing section, and the Readiness/ETA lines for people. A new
// StatefulSet of the set has no pod to measure: --pod-ready-after gives its times.
func TestPreviewSetTimedStatefulSet(t *testing.T) {
	t.Parallel()
	c := framework.Get(t)
	ns := c.Namespace(t)
	createKind(t, c, ns, "sts", "db")
	kindRolledOut(t, c, ns, "sts/db")
	file := filepath.Join(t.TempDir(), "set.yaml")
	writeManifests(t, filepath.Dir(file), map[string]string{"set.yaml": `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 2
  serviceName: db
  podManagementPolicy: Parallel
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      nodeSelector: {type: kwok}
      tolerations: [{operator: Exists}]
      containers: [{name: app, image: "nginx:1.19"}]
`})
	list, res := previewList(t, c, ns, "-f", file, "--readiness", "timed", "--sync-latency", "1s")
	if res.ExitCode != 0 || len(list.Items) != 1 {
		t.Fatalf("preview -f --readiness timed: exit %d, %d plans\n%s", res.ExitCode, len(list.Items), res.Stderr)
	}
	p := list.Items[0]
	if p.Workload == nil || p.Workload.Kind != "StatefulSet" || p.Duration == nil || p.Timing == nil || p.Timing.Source != "pods" || len(p.PodOperations) != 4 {
		t.Fatalf("plan: workload %+v, duration %v, timing %+v, %d operations; want the StatefulSet's, timed from its pods, 4 operations", p.Workload, p.Duration, p.Timing, len(p.PodOperations))
	}
	last := p.PodOperations[len(p.PodOperations)-1]
	// Parallel, maxUnavailable absent: web-1 then web-0, each deleted, created a second
	// later, Ready the measured time after: the duration is past the last create by it.
	if last.At == nil || p.Duration.Duration < last.At.Duration+p.Timing.ReadyAfterMedian.Duration || last.At.Duration < 2*time.Second {
		t.Errorf("last operation %+v at %v, duration %s, pods Ready %s: want the last create at 2 s or later and the duration its time + Ready", last, last.At, p.Duration.Duration, p.Timing.ReadyAfterMedian.Duration)
	}
	human := c.Plugin(t, "preview", "-f", file, "-n", ns, "--readiness", "timed", "--sync-latency", "1s")
	if human.ExitCode != 0 || !strings.Contains(human.Stdout, "measured on the StatefulSet's own pods") || !strings.Contains(human.Stdout, "ETA:") || !strings.Contains(human.Stdout, "sync 1 (at 0s):") {
		t.Errorf("human: exit %d\n%s\n%s", human.ExitCode, human.Stdout, human.Stderr)
	}
}
