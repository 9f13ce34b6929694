//go:build e2e

package e2e

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// A quota of exactly the Deployment's pods with maxUnavailable 1 and maxSurge 0: preview
// predicts the rollout completes (each scale-down frees the quota the next create needs), and
// the live rollout completes (kubectl rollout status).
func TestFeasibilityQuotaCompletes(t *testing.T) {
	t.Parallel()
	c := framework.Get(t)
	ns := c.Namespace(t)
	webUnderPodsQuota(t, c, ns, "0", "1")
	res := c.Plugin(t, "preview", "deploy/web", "-n", ns, "--image", "app=nginx:1.19", "--checks", "quota", "--fail-on-stall")
	t.Logf("preview: exit %d\n%s%s", res.ExitCode, res.Stdout, res.Stderr)
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "Outcome: Complete") || strings.Contains(res.Stdout, "Stalled at step") {
		t.Fatalf("preview: exit %d, want 0, Outcome: Complete and no stall", res.ExitCode)
	}
	c.UpdateDeployment(t, ns, "web", func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "nginx:1.19" })
	start := time.Now()
	st := c.Kubectl(t, "rollout", "status", "deploy/web", "-n", ns, "--timeout=60s")
	t.Logf("kubectl rollout status: exit %d after %s\n%s%s", st.ExitCode, time.Since(start).Round(100*time.Millisecond), st.Stdout, st.Stderr)
	if st.ExitCode != 0 || !strings.Contains(st.Stdout, "successfully rolled out") {
		t.Fatalf("kubectl rollout status: exit %d, want the rollout to complete", st.ExitCode)
	}
}

// A requests.cpu quota with room for the Deployment's pods only, whose pods declare no
// requests but get a LimitRange's default cpu request: preview charges the defaulted request
// and predicts a Quota stall at step 1 naming requests.cpu; the live new ReplicaSet's create
// is refused with "exceeded quota" naming requests.cpu.
func TestFeasibilityQuotaLimitRangeCPU(t *testing.T) {
	t.Parallel()
	c := framework.Get(t)
	ns := c.Namespace(t)
	createDefaultCPURequest(t, c, ns, "100m")
	// pods is there for waitQuotaUsed; requests.cpu is the resource that runs out.
	createCPUQuota(t, c, ns, "200m")
	waitQuotaUsed(t, c, ns, "cpu", 0, 30*time.Second)
	c.CreateDeployment(t, ns, framework.NewDeployment("web").Replicas(2).RollingUpdate("1", "0"))
	c.WaitForRollout(t, ns, "web", time.Minute)
	waitQuotaUsed(t, c, ns, "cpu", 2, 60*time.Second)
	res := c.Plugin(t, "preview", "deploy/web", "-n", ns, "--image", "app=nginx:1.19", "--checks", "quota", "--fail-on-stall")
	t.Logf("preview: exit %d\n%s%s", res.ExitCode, res.Stdout, res.Stderr)
	if res.ExitCode != 3 || !strings.Contains(res.Stdout, "Stalled at step 1: Quota: ") ||
		!strings.Contains(res.Stdout, "resourcequota/cpu") || !strings.Contains(res.Stdout, "requests.cpu") {
		t.Fatalf("preview: exit %d, want 3 and a Quota stall at step 1 naming resourcequota/cpu and requests.cpu", res.ExitCode)
	}
	c.UpdateDeployment(t, ns, "web", func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "nginx:1.19" })
	msg := waitQuotaRefused(t, c, ns, "nginx:1.19", 2, 30*time.Second)
	t.Logf("live: %s", msg)
	if !strings.Contains(msg, "requests.cpu") {
		t.Errorf("live ReplicaFailure %q does not name requests.cpu", msg)
	}
}

// waitQuotaRefused waits until the ReplicaSet of ns whose container runs image has a
// ReplicaFailure condition saying "exceeded quota", and returns its message; it fails the
// test when the old ReplicaSet's spec.replicas is not oldReplicas then (the stall is before
// any scale-down).
func waitQuotaRefused(t *testing.T, c *framework.Cluster, ns, image string, oldReplicas int32, timeout time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		rss, err := c.Client.AppsV1().ReplicaSets(ns).List(t.Context(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		refused, old := "", int32(-1)
		for _, rs := range rss.Items {
			if rs.Spec.Template.Spec.Containers[0].Image != image {
				old = *rs.Spec.Replicas
				continue
			}
			for _, cond := range rs.Status.Conditions {
				if cond.Type == appsv1.ReplicaSetReplicaFailure && strings.Contains(cond.Message, "exceeded quota") {
					refused = cond.Message
				}
			}
		}
		if refused != "" {
			if old != oldReplicas {
				t.Errorf("old ReplicaSet scaled to %d, want %d (no scale-down)", old, oldReplicas)
			}
			return refused
		}
		if time.Now().After(deadline) {
			t.Fatalf("the ReplicaSet of %s has no ReplicaFailure exceeded quota after %s", image, timeout)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// waitPodUnschedulable waits until a pod of ns has PodScheduled=False with a message holding
// every want, and returns the message.
func waitPodUnschedulable(t *testing.T, c *framework.Cluster, ns string, timeout time.Duration, wants ...string) string {
	t.Helper()
	deadline := time.Now().Add(timeout)
	last := ""
	for {
		pods, err := c.Client.CoreV1().Pods(ns).List(t.Context(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pods.Items {
			for _, cond := range p.Status.Conditions {
				if cond.Type != corev1.PodScheduled || cond.Status != corev1.ConditionFalse {
					continue
				}
				last = cond.Message
				ok := true
				for _, w := range wants {
					ok = ok && strings.Contains(cond.Message, w)
				}
				if ok {
					t.Logf("live: pod %s Pending: %s", p.Name, cond.Message)
					return cond.Message
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pod PodScheduled=False with %q after %s (last: %q)", wants, timeout, last)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
