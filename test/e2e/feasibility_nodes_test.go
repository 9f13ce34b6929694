//go:build e2e

package e2e

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// The node cases below are not parallel: their private nodes change the scheduler's
// messages other tests assert ("0/1 nodes are available"); framework.PrivateNode deletes the
// nodes in cleanup, before the parallel tests run.

// blockedTaint is the taint TestFeasibilityTaintStall puts on the only free node.
var blockedTaint = corev1.Taint{Key: "rollplan.test/blocked", Value: "true", Effect: corev1.TaintEffectNoSchedule}

// A taint on the only free node: the Deployment's pods select and tolerate one private node
// with room to spare, which then gains a taint they do not tolerate (NoSchedule leaves the
// running pod). Preview predicts Stalled at step 1: Unschedulable; the live surge pod stays
// Pending with the scheduler's "had untolerated taint(s)" (v1.36.3 names no taint key), the
// message the preview predicted.
func TestFeasibilityTaintStall(t *testing.T) {
	c := framework.Get(t)
	ns := c.Namespace(t)
	node := "taint-" + ns
	c.PrivateNode(t, node)
	d := framework.NewDeployment("web").Replicas(1).RollingUpdate("1", "0").Build()
	framework.PrivateNodeTemplate(&d.Spec.Template, node)
	if _, err := c.Client.AppsV1().Deployments(ns).Create(t.Context(), d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	c.WaitForRollout(t, ns, "web", time.Minute)
	patch := `{"spec":{"taints":[{"key":"` + framework.PrivateNodeKey + `","value":"` + node + `","effect":"NoSchedule"},` +
		`{"key":"` + blockedTaint.Key + `","value":"` + blockedTaint.Value + `","effect":"NoSchedule"}]}}`
	if _, err := c.Client.CoreV1().Nodes().Patch(t.Context(), node, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatalf("taint node %s: %v", node, err)
	}
	res := c.Plugin(t, "preview", "deploy/web", "-n", ns, "--image", "app=nginx:1.19", "--checks", "capacity")
	t.Logf("preview: exit %d\n%s%s", res.ExitCode, res.Stdout, res.Stderr)
	predicted := predictedUnschedulable(t, res.Stdout)
	if !strings.Contains(predicted, "1 node(s) had untolerated taint") {
		t.Fatalf("preview: the stall %q does not name the untolerated taint", predicted)
	}
	c.UpdateDeployment(t, ns, "web", func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "nginx:1.19" })
	waitPodUnschedulable(t, c, ns, 30*time.Second, predicted)
}

// nodeSelector to a full pool: two private nodes labelled as one pool, each holding one of
// the Deployment's two 3-cpu pods (4 cpu each). Preview predicts Stalled at step 1:
// Unschedulable; the live surge pod stays Pending with "Insufficient cpu" on both pool nodes,
// the other nodes not matching its nodeSelector: the predicted message, verbatim.
func TestFeasibilityPoolFullStall(t *testing.T) {
	c := framework.Get(t)
	ns := c.Namespace(t)
	const poolKey = "rollplan.test/pool"
	pool := "pool-" + ns
	for _, node := range []string{pool + "-a", pool + "-b"} {
		c.PrivateNode(t, node)
		patch := `{"metadata":{"labels":{"` + poolKey + `":"` + pool + `"}}}`
		if _, err := c.Client.CoreV1().Nodes().Patch(t.Context(), node, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Fatalf("label node %s: %v", node, err)
		}
	}
	d := framework.NewDeployment("web").Replicas(2).RollingUpdate("1", "0").Build()
	spec := &d.Spec.Template.Spec
	spec.NodeSelector = map[string]string{poolKey: pool}
	spec.Tolerations = []corev1.Toleration{{Key: framework.PrivateNodeKey, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}
	spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3")}
	if _, err := c.Client.AppsV1().Deployments(ns).Create(t.Context(), d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	c.WaitForRollout(t, ns, "web", time.Minute)
	res := c.Plugin(t, "preview", "deploy/web", "-n", ns, "--image", "app=nginx:1.19", "--checks", "capacity")
	t.Logf("preview: exit %d\n%s%s", res.ExitCode, res.Stdout, res.Stderr)
	predicted := predictedUnschedulable(t, res.Stdout)
	if !strings.Contains(predicted, "2 Insufficient cpu") {
		t.Fatalf("preview: the stall %q does not name Insufficient cpu on both pool nodes", predicted)
	}
	c.UpdateDeployment(t, ns, "web", func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "nginx:1.19" })
	waitPodUnschedulable(t, c, ns, 30*time.Second, predicted)
}

// A single-replica Deployment with the default strategy (maxSurge 25% rounds up to 1,
// maxUnavailable 25% down to 0) on a full pool: preview predicts Stalled at step 1:
// Unschedulable, and live the surge pod stays Pending with the predicted message ("Insufficient
// cpu") while the old pod keeps running.
func TestFeasibilitySingleReplicaStall(t *testing.T) {
	c := framework.Get(t)
	ns := c.Namespace(t)
	node := "single-" + ns
	c.PrivateNode(t, node)
	d := framework.NewDeployment("web").Build() // replicas 1, RollingUpdate 25%/25% by default
	framework.PrivateNodeTemplate(&d.Spec.Template, node)
	d.Spec.Template.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3")}
	if _, err := c.Client.AppsV1().Deployments(ns).Create(t.Context(), d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	c.WaitForRollout(t, ns, "web", time.Minute)
	res := c.Plugin(t, "preview", "deploy/web", "-n", ns, "--image", "app=nginx:1.19", "--checks", "capacity")
	t.Logf("preview: exit %d\n%s%s", res.ExitCode, res.Stdout, res.Stderr)
	if !strings.Contains(res.Stdout, "maxSurge 25% (1 pod), maxUnavailable 25% (0 pods)") {
		t.Fatalf("preview: exit %d, want maxSurge 25%% -> 1 pod, maxUnavailable 25%% -> 0 pods", res.ExitCode)
	}
	predicted := predictedUnschedulable(t, res.Stdout)
	if !strings.Contains(predicted, "1 Insufficient cpu") {
		t.Fatalf("preview: the stall %q does not name Insufficient cpu", predicted)
	}
	c.UpdateDeployment(t, ns, "web", func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "nginx:1.19" })
	waitPodUnschedulable(t, c, ns, 30*time.Second, predicted)
	got, err := c.Client.AppsV1().Deployments(ns).Get(t.Context(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status.AvailableReplicas != 1 {
		t.Errorf("deployment has %d available replicas, want 1 (the old pod stays)", got.Status.AvailableReplicas)
	}
}

// predictedUnschedulable returns the scheduler message of preview's outcome line "Stalled at
// step 1: Unschedulable: <n> pod(s) of <rs> Pending: <message>", failing the test when there
// is no such line; the live pod's PodScheduled message must hold it verbatim.
func predictedUnschedulable(t *testing.T, stdout string) string {
	t.Helper()
	for _, line := range strings.Split(stdout, "\n") {
		if rest, ok := strings.CutPrefix(line, "Stalled at step 1: Unschedulable: "); ok {
			if _, msg, ok := strings.Cut(rest, " Pending: "); ok {
				return msg
			}
		}
	}
	t.Fatalf("preview: no line %q", "Stalled at step 1: Unschedulable: ... Pending: <scheduler message>")
	return ""
}
