//go:build e2e

package e2e

import (
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// readyDelays returns, sorted, creation -> Ready condition's lastTransitionTime of every Ready
// pod of d (second precision, as the API server stores both).
func readyDelays(t *testing.T, c *framework.Cluster, d *appsv1.Deployment) []time.Duration {
	t.Helper()
	sel := metav1.FormatLabelSelector(d.Spec.Selector)
	pods, err := c.Client.CoreV1().Pods(d.Namespace).List(t.Context(), metav1.ListOptions{LabelSelector: sel})
	if err != nil {
		t.Fatal(err)
	}
	var out []time.Duration
	for _, p := range pods.Items {
		for _, cond := range p.Status.Conditions {
			if cond.Type == corev1.PodReady && cond.Status == corev1.ConditionTrue {
				out = append(out, cond.LastTransitionTime.Sub(p.CreationTimestamp.Time))
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestKwokReadyAfter checks the per-pod delay of hack/cluster/kwok-stages.yaml: a pod
// template with rollplan.test/ready-after becomes Ready that long after creation, with
// ready-after-max spread over the range, and a pod without them at once (as before).
func TestKwokReadyAfter(t *testing.T) {
	c := framework.Get(t)
	ns := c.Namespace(t)
	fixed := c.CreateDeployment(t, ns, framework.NewDeployment("fixed").Replicas(4).ReadyAfter(2*time.Second, 0))
	spread := c.CreateDeployment(t, ns, framework.NewDeployment("spread").Replicas(12).ReadyAfter(time.Second, 4*time.Second))
	plain := c.CreateDeployment(t, ns, framework.NewDeployment("plain").Replicas(4))
	for _, d := range []*appsv1.Deployment{fixed, spread, plain} {
		c.WaitForRollout(t, ns, d.Name, time.Minute)
	}
	got := readyDelays(t, c, fixed)
	t.Logf("fixed 2s: %v", got)
	if len(got) != 4 || got[0] < 2*time.Second || got[3] > 4*time.Second {
		t.Errorf("ready-after 2s: creation -> Ready %v, want 4 pods within [2s, 4s] (second precision)", got)
	}
	got = readyDelays(t, c, spread)
	t.Logf("spread 1-4s: %v", got)
	if len(got) != 12 || got[0] < time.Second || got[11] > 6*time.Second || got[11]-got[0] < time.Second {
		t.Errorf("ready-after 1s..4s: creation -> Ready %v, want 12 pods within [1s, 6s], spread at least 1s", got)
	}
	got = readyDelays(t, c, plain)
	t.Logf("plain: %v", got)
	if len(got) != 4 || got[3] > time.Second {
		t.Errorf("no annotation: creation -> Ready %v, want 4 pods within 1s", got)
	}
}
