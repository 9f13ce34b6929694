//go:build e2e

package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// nodeLostRollout rolls web (2 replicas, 25%/25%: one surge pod, none unavailable) from the
// shared nodes to a private kwok node, with held pods: the first new pod is released and
// becomes Ready, the controller scales the old ReplicaSet down and creates the second new
// pod (held) there. Then the node is lost (kwok stops its status, Ready=Unknown, its pods not
// Ready: framework.LoseNode). It returns the namespace, the node and when it was lost.
func nodeLostRollout(t *testing.T, c *framework.Cluster) (string, string, time.Time) {
	t.Helper()
	ns := c.Namespace(t)
	node := "lost-" + ns
	c.PrivateNode(t, node)
	c.CreateDeployment(t, ns, framework.NewDeployment("web").Replicas(2).RollingUpdate("25%", "25%"))
	c.WaitForRollout(t, ns, "web", time.Minute)
	c.UpdateDeployment(t, ns, "web", func(d *appsv1.Deployment) {
		framework.PrivateNodeTemplate(&d.Spec.Template, node)
		framework.SetHold(&d.Spec.Template, true)
	})
	onNode := func(ctx context.Context, n int) ([]corev1.Pod, error) {
		var pods []corev1.Pod
		err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			list, err := c.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + node})
			if err != nil {
				return false, err
			}
			pods = list.Items
			return len(pods) >= n, nil
		})
		return pods, err
	}
	first, err := onNode(t.Context(), 1)
	if err != nil {
		t.Fatalf("no new pod on node %s: %v", node, err)
	}
	c.ReleasePods(t, ns, "")
	if _, err := onNode(t.Context(), 2); err != nil {
		t.Fatalf("no second new pod on node %s after %s turned Ready: %v", node, first[0].Name, err)
	}
	lost := time.Now()
	c.LoseNode(t, node)
	return ns, node, lost
}

// TestStallNodeLost: mid-rollout, the node carrying the new pods (one Ready, one starting)
// stops posting its status; `status --watch --fail-fast --fail-fast-after 5s` names
// NodeLost with both pods and the node's condition, and exits 6 within 5 s plus a few
// seconds, where the rollout would otherwise wait for progressDeadlineSeconds (600 s).
func TestStallNodeLost(t *testing.T) {
	t.Parallel()
	c := framework.Get(t)
	ns, node, lost := nodeLostRollout(t, c)
	res := c.Plugin(t, "status", "deploy/web", "-n", ns, "--watch", "--timeout", "50s", "--fail-fast", "--fail-fast-after", failFastAfter.String())
	took := time.Since(lost)
	t.Logf("status --fail-fast: exit %d after %s\nstdout:\n%s\nstderr:\n%s", res.ExitCode, took.Round(100*time.Millisecond), res.Stdout, res.Stderr)
	want := "2 pods NodeLost: node " + node + " is not Ready (Unknown, NodeStatusUnknown): Kubelet stopped posting node status."
	if res.ExitCode != 6 || !strings.Contains(res.Stderr, `error: deployment "web" does not progress`) || !strings.Contains(res.Stderr, want) {
		t.Fatalf("exit %d, stderr %q; want 6 naming %q", res.ExitCode, res.Stderr, want)
	}
	if took > failFastAfter+slack {
		t.Errorf("exit after %s, want within %s", took, failFastAfter+slack)
	}
	if !strings.Contains(res.Stdout, "NOT PROGRESSING: 2 pods NodeLost") {
		t.Errorf("no status line names the reason:\n%s", res.Stdout)
	}
}
