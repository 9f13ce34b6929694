//go:build e2e

package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// A quota of exactly the Deployment's pods and maxUnavailable 0: preview predicts the stall
// at step 1 (the surge pod refused by the quota), and the live rollout agrees: the new
// ReplicaSet's create is refused ("exceeded quota") and no old pod goes.
func TestFeasibilityQuotaStall(t *testing.T) {
	t.Parallel()
	c := framework.Get(t)
	ns := c.Namespace(t)
	webUnderPodsQuota(t, c, ns, "1", "0")
	res := c.Plugin(t, "preview", "deploy/web", "-n", ns, "--image", "app=nginx:1.19", "--fail-on-stall")
	t.Logf("preview: exit %d\n%s%s", res.ExitCode, res.Stdout, res.Stderr)
	if res.ExitCode != 3 || !strings.Contains(res.Stdout, "Stalled at step 1: Quota: ") || !strings.Contains(res.Stdout, "resourcequota/pods") {
		t.Fatalf("preview: exit %d, want 3 and a Quota stall at step 1 naming resourcequota/pods", res.ExitCode)
	}
	c.UpdateDeployment(t, ns, "web", func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "nginx:1.19" })
	deadline := time.Now().Add(30 * time.Second)
	for {
		rss, err := c.Client.AppsV1().ReplicaSets(ns).List(t.Context(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		refused, oldReplicas := "", int32(0)
		for _, rs := range rss.Items {
			if rs.Spec.Template.Spec.Containers[0].Image == "nginx:1.19" {
				for _, cond := range rs.Status.Conditions {
					if cond.Type == appsv1.ReplicaSetReplicaFailure && strings.Contains(cond.Message, "exceeded quota") {
						refused = cond.Message
					}
				}
			} else {
				oldReplicas = *rs.Spec.Replicas
			}
		}
		if refused != "" {
			if oldReplicas != 2 {
				t.Errorf("old ReplicaSet scaled to %d, want 2 (the rollout stalls before any scale-down)", oldReplicas)
			}
			t.Logf("live: %s", refused)
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the new ReplicaSet has no ReplicaFailure exceeded quota after 30s")
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// A PDB allowing no disruption and a strategy taking one pod down at once: a pdb finding
// naming both numbers; the rollout itself proceeds (it deletes without eviction).
func TestFeasibilityPDBFinding(t *testing.T) {
	t.Parallel()
	c := framework.Get(t)
	ns := c.Namespace(t)
	zero := intstr.FromInt32(0)
	pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns},
		Spec: policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &zero, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}
	if _, err := c.Client.PolicyV1().PodDisruptionBudgets(ns).Create(t.Context(), pdb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	c.CreateDeployment(t, ns, framework.NewDeployment("web").Replicas(2).RollingUpdate("0", "1"))
	c.WaitForRollout(t, ns, "web", time.Minute)
	res := c.Plugin(t, "preview", "deploy/web", "-n", ns, "--image", "app=nginx:1.19", "--checks", "pdb")
	t.Logf("preview: exit %d\n%s%s", res.ExitCode, res.Stdout, res.Stderr)
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "FINDINGS") || !strings.Contains(res.Stdout, "poddisruptionbudget/web") {
		t.Fatalf("preview: exit %d, want 0 and a pdb finding naming poddisruptionbudget/web", res.ExitCode)
	}
	c.UpdateDeployment(t, ns, "web", func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "nginx:1.19" })
	c.WaitForRollout(t, ns, "web", time.Minute)
}

// An HPA scaling the Deployment and a change of replicas: hpa findings (the HPA's numbers,
// and that it overrides the change). The local cluster runs no HPA controller, so the
// override itself is not observed live.
func TestFeasibilityHPAFinding(t *testing.T) {
	t.Parallel()
	c := framework.Get(t)
	ns := c.Namespace(t)
	c.CreateDeployment(t, ns, framework.NewDeployment("web").Replicas(2))
	minReplicas := int32(2)
	hpa := &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{MinReplicas: &minReplicas, MaxReplicas: 6,
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"}}}
	if _, err := c.Client.AutoscalingV2().HorizontalPodAutoscalers(ns).Create(t.Context(), hpa, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	res := c.Plugin(t, "preview", "deploy/web", "-n", ns, "--replicas", "4", "--checks", "hpa", "-o", "json")
	t.Logf("preview: exit %d\n%s%s", res.ExitCode, res.Stdout, res.Stderr)
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "horizontalpodautoscaler/web") || !strings.Contains(res.Stdout, "overrides it") {
		t.Fatalf("preview: exit %d, want 0 and an hpa finding that horizontalpodautoscaler/web overrides the change", res.ExitCode)
	}
}

// The node full for the surge pod (not parallel: its pod holds most of the shared fake
// node's cpu while it runs): preview predicts Stalled at step 1: Unschedulable, and the
// live surge pod stays Pending with the scheduler's "Insufficient cpu".
func TestFeasibilityCapacityStall(t *testing.T) {
	c := framework.Get(t)
	ns := c.Namespace(t)
	d := framework.NewDeployment("web").Replicas(1).RollingUpdate("1", "0").Build()
	d.Spec.Template.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("600")}
	if _, err := c.Client.AppsV1().Deployments(ns).Create(t.Context(), d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // free the node's cpu before the parallel tests run
		_ = c.Client.AppsV1().Deployments(ns).Delete(context.Background(), "web", metav1.DeleteOptions{})
		_ = c.Client.CoreV1().Pods(ns).DeleteCollection(context.Background(), metav1.DeleteOptions{GracePeriodSeconds: new(int64)}, metav1.ListOptions{})
	})
	c.WaitForRollout(t, ns, "web", time.Minute)
	res := c.Plugin(t, "preview", "deploy/web", "-n", ns, "--image", "app=nginx:1.19", "--checks", "capacity")
	t.Logf("preview: exit %d\n%s%s", res.ExitCode, res.Stdout, res.Stderr)
	if !strings.Contains(res.Stdout, "Stalled at step 1: Unschedulable: ") {
		t.Fatalf("preview: exit %d, want an Unschedulable stall at step 1", res.ExitCode)
	}
	c.UpdateDeployment(t, ns, "web", func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "nginx:1.19" })
	deadline := time.Now().Add(30 * time.Second)
	for {
		pods, err := c.Client.CoreV1().Pods(ns).List(t.Context(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pods.Items {
			for _, cond := range p.Status.Conditions {
				if cond.Type == corev1.PodScheduled && cond.Status == corev1.ConditionFalse && strings.Contains(cond.Message, "Insufficient cpu") {
					t.Logf("live: pod %s Pending: %s", p.Name, cond.Message)
					return
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("no pod PodScheduled=False with Insufficient cpu after 30s")
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// restart and undo run the checks on the plan before they write: a quota of exactly the
// Deployment's pods with maxUnavailable 0 shows "Stalled at step 1" with the quota, and with
// --fail-on-stall they exit 3 and leave the Deployment as it was (generation unchanged).
func TestFeasibilityVerbsQuotaStall(t *testing.T) {
	t.Parallel()
	c := framework.Get(t)
	ns := c.Namespace(t)
	c.CreateDeployment(t, ns, framework.NewDeployment("web").Replicas(2).RollingUpdate("1", "0"))
	c.WaitForRollout(t, ns, "web", time.Minute)
	c.UpdateDeployment(t, ns, "web", func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "nginx:1.19" })
	c.WaitForRollout(t, ns, "web", time.Minute)
	q := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "pods", Namespace: ns},
		Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("2")}}}
	if _, err := c.Client.CoreV1().ResourceQuotas(ns).Create(t.Context(), q, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitQuotaUsed(t, c, ns, "pods", 2, 60*time.Second)
	before, err := c.Client.AppsV1().Deployments(ns).Get(t.Context(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, verb := range []string{"restart", "undo"} {
		res := c.Plugin(t, verb, "deploy/web", "-n", ns, "--yes", "--fail-on-stall")
		t.Logf("%s: exit %d\n%s%s", verb, res.ExitCode, res.Stdout, res.Stderr)
		if res.ExitCode != 3 || !strings.Contains(res.Stdout, "Stalled at step 1: Quota: ") || !strings.Contains(res.Stdout, "resourcequota/pods") {
			t.Errorf("%s: exit %d, want 3 and a Quota stall at step 1 naming resourcequota/pods", verb, res.ExitCode)
		}
		after, err := c.Client.AppsV1().Deployments(ns).Get(t.Context(), "web", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if after.Generation != before.Generation {
			t.Errorf("%s --fail-on-stall: generation %d -> %d, want unchanged", verb, before.Generation, after.Generation)
		}
	}
}

// waitQuotaUsed waits until ResourceQuota ns/name's status.used counts pods pods (the
// resourcequota controller's recount, every 15 s on the local cluster, mends a pod admitted
// before the admission cache had the quota).
func waitQuotaUsed(t *testing.T, c *framework.Cluster, ns, name string, pods int64, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		got, err := c.Client.CoreV1().ResourceQuotas(ns).Get(t.Context(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if u, ok := got.Status.Used[corev1.ResourcePods]; ok && u.Value() == pods {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the quota's status.used is %v after %s, want pods: %d", got.Status.Used, timeout, pods)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// webUnderPodsQuota makes Deployment web (2 replicas, RollingUpdate maxSurge, maxUnavailable)
// in ns under ResourceQuota "pods" of exactly its 2 pods, and returns once it is rolled out
// and the quota counts both pods: the quota is seen before the pods come (so admission
// charges them) and the resourcequota controller's count is current before the test goes on.
func webUnderPodsQuota(t *testing.T, c *framework.Cluster, ns, maxSurge, maxUnavailable string) {
	t.Helper()
	q := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "pods", Namespace: ns},
		Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("2")}}}
	if _, err := c.Client.CoreV1().ResourceQuotas(ns).Create(t.Context(), q, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitQuotaUsed(t, c, ns, "pods", 0, 30*time.Second)
	c.CreateDeployment(t, ns, framework.NewDeployment("web").Replicas(2).RollingUpdate(maxSurge, maxUnavailable))
	c.WaitForRollout(t, ns, "web", time.Minute)
	waitQuotaUsed(t, c, ns, "pods", 2, 60*time.Second)
}

// createCPUQuota creates ResourceQuota "cpu" in ns: requests.cpu hard as given, and pods 10
// (the resource waitQuotaUsed counts).
func createCPUQuota(t *testing.T, c *framework.Cluster, ns, hard string) {
	t.Helper()
	q := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "cpu", Namespace: ns},
		Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{
			corev1.ResourceRequestsCPU: resource.MustParse(hard), corev1.ResourcePods: resource.MustParse("10")}}}
	if _, err := c.Client.CoreV1().ResourceQuotas(ns).Create(t.Context(), q, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// createDefaultCPURequest creates LimitRange "defaults" in ns: containers without a cpu
// request get request.
func createDefaultCPURequest(t *testing.T, c *framework.Cluster, ns, request string) {
	t.Helper()
	lr := &corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: "defaults", Namespace: ns},
		Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{Type: corev1.LimitTypeContainer,
			DefaultRequest: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(request)}}}}}
	if _, err := c.Client.CoreV1().LimitRanges(ns).Create(t.Context(), lr, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}
