//go:build e2e

package e2e

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"sigs.k8s.io/yaml"

	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// The tests of this file are not parallel: their private node would show in other tests'
// cluster-wide reads and scheduler messages (framework.PrivateNode).

// loseNodeMidRollout waits for the rollout of web (2 replicas, 25%/25%: one surge pod, none
// unavailable) to a template with held pods on the private node to bring its first new pod
// there, releases it (it turns Ready, so the old ReplicaSet scales down and the second new
// pod, held, comes there too), then loses the node (kwok stops its status, Ready=Unknown,
// its pods not Ready: framework.LoseNode). It returns when the node was lost.
func loseNodeMidRollout(t *testing.T, c *framework.Cluster, ns, node string) time.Time {
	t.Helper()
	onNode := func(n int) error {
		return wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			list, err := c.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + node})
			if err != nil {
				return false, err
			}
			return len(list.Items) >= n, nil
		})
	}
	if err := onNode(1); err != nil {
		t.Fatalf("no new pod on node %s: %v", node, err)
	}
	c.ReleasePods(t, ns, "")
	if err := onNode(2); err != nil {
		t.Fatalf("no second new pod on node %s after the first turned Ready: %v", node, err)
	}
	lost := time.Now()
	c.LoseNode(t, node)
	return lost
}

// nodeLostWant is what status and drive say of the two new pods on the lost node.
func nodeLostWant(node string) string {
	return "2 pods NodeLost: node " + node + " is not Ready (Unknown, NodeStatusUnknown): Kubelet stopped posting node status."
}

// TestStallNodeLost: mid-rollout, the node carrying the new pods (one Ready, one starting)
// stops posting its status; `status --watch --fail-fast --fail-fast-after 5s` names
// NodeLost with both pods and the node's condition, and exits 6 within 5 s plus a few
// seconds, where the rollout would otherwise wait for progressDeadlineSeconds (600 s).
func TestStallNodeLost(t *testing.T) {
	c := framework.Get(t)
	ns := c.Namespace(t)
	node := "lost-" + ns
	c.PrivateNode(t, node)
	c.CreateDeployment(t, ns, framework.NewDeployment("web").Replicas(2).RollingUpdate("25%", "25%"))
	c.WaitForRollout(t, ns, "web", time.Minute)
	c.UpdateDeployment(t, ns, "web", func(d *appsv1.Deployment) {
		framework.PrivateNodeTemplate(&d.Spec.Template, node)
		framework.SetHold(&d.Spec.Template, true)
	})
	lost := loseNodeMidRollout(t, c, ns, node)
	res := c.Plugin(t, "status", "deploy/web", "-n", ns, "--watch", "--timeout", "50s", "--fail-fast", "--fail-fast-after", failFastAfter.String())
	took := time.Since(lost)
	t.Logf("status --fail-fast: exit %d after %s\nstdout:\n%s\nstderr:\n%s", res.ExitCode, took.Round(100*time.Millisecond), res.Stdout, res.Stderr)
	if want := nodeLostWant(node); res.ExitCode != 6 || !strings.Contains(res.Stderr, `error: deployment "web" does not progress`) || !strings.Contains(res.Stderr, want) {
		t.Fatalf("exit %d, stderr %q; want 6 naming %q", res.ExitCode, res.Stderr, want)
	}
	if took > failFastAfter+slack {
		t.Errorf("exit after %s, want within %s", took, failFastAfter+slack)
	}
	if !strings.Contains(res.Stdout, "NOT PROGRESSING: 2 pods NodeLost") {
		t.Errorf("no status line names the reason:\n%s", res.Stdout)
	}
}

// TestStallDriveNodeLost: drive to a template on the private node; mid-rollout the node is
// lost; drive --fail-fast --fail-fast-after 5s holds (exit 4) naming NodeLost.
func TestStallDriveNodeLost(t *testing.T) {
	s := newDriveSetup(t, 2, "25%", "25%")
	node := "lost-" + s.ns
	s.c.PrivateNode(t, node)
	manifest := s.manifest(t, "nginx:1.19", true)
	editManifest(t, manifest, func(d *appsv1.Deployment) { framework.PrivateNodeTemplate(&d.Spec.Template, node) })
	bg := s.startDrive(t, nil, "drive", "deploy/web", "-f", manifest, "--yes", "--fail-fast", "--fail-fast-after", failFastAfter.String())
	lost := loseNodeMidRollout(t, s.c, s.ns, node)
	select {
	case <-bg.Done():
	case <-time.After(failFastAfter + slack + 20*time.Second):
		t.Fatalf("drive still running %s after the node was lost\nstderr:\n%s", time.Since(lost), bg.Stderr.String())
	}
	took := time.Since(lost)
	t.Logf("drive --fail-fast: exit %d after %s\nstderr:\n%s", bg.ExitCode(), took.Round(100*time.Millisecond), bg.Stderr.String())
	if bg.ExitCode() != 4 {
		t.Fatalf("drive: exit %d, want 4 (held)", bg.ExitCode())
	}
	for _, want := range []string{"--fail-fast: pods of ReplicaSet", nodeLostWant(node)} {
		if !strings.Contains(bg.Stderr.String(), want) {
			t.Errorf("stderr lacks %q", want)
		}
	}
	if took > failFastAfter+slack {
		t.Errorf("held after %s, want within %s", took, failFastAfter+slack)
	}
}

// editManifest applies edit to the Deployment manifest at path.
func editManifest(t *testing.T, path string, edit func(*appsv1.Deployment)) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var d appsv1.Deployment
	if err := yaml.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	edit(&d)
	if b, err = yaml.Marshal(&d); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
