//go:build e2e

package e2e

import (
	"maps"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// A quota of exactly the Deployment's pods and maxUnavailable 0: drive --fail-on-stall
// prints its plan with the quota stall at step 1 and exits 3 before any write: the
// Deployment's generation, template and annotations are as before (no takeover, no drive
// annotation, no lease), and no new ReplicaSet exists.
func TestDriveFeasibilityQuotaFailOnStall(t *testing.T) {
	t.Parallel()
	c := framework.Get(t)
	ns := c.Namespace(t)
	webUnderPodsQuota(t, c, ns, "1", "0")
	before, err := c.Client.AppsV1().Deployments(ns).Get(t.Context(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res := c.Plugin(t, "drive", "deploy/web", "-n", ns, "--image", "app=nginx:1.19", "--yes", "--fail-on-stall")
	t.Logf("drive: exit %d\n%s%s", res.ExitCode, res.Stdout, res.Stderr)
	if res.ExitCode != 3 || !strings.Contains(res.Stdout, "Stalled at step 1: Quota: ") || !strings.Contains(res.Stderr, "resourcequota/pods") {
		t.Fatalf("drive: exit %d, want 3, a Quota stall at step 1 and an error naming resourcequota/pods", res.ExitCode)
	}
	after, err := c.Client.AppsV1().Deployments(ns).Get(t.Context(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if after.Generation != before.Generation || after.Spec.Paused || !maps.Equal(after.Annotations, before.Annotations) ||
		after.Spec.Template.Spec.Containers[0].Image != before.Spec.Template.Spec.Containers[0].Image {
		t.Errorf("deployment changed: generation %d -> %d, paused %v, image %s, annotations %v -> %v", before.Generation, after.Generation,
			after.Spec.Paused, after.Spec.Template.Spec.Containers[0].Image, before.Annotations, after.Annotations)
	}
	rss, err := c.Client.AppsV1().ReplicaSets(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rss.Items) != 1 {
		t.Errorf("%d ReplicaSets, want the 1 there was", len(rss.Items))
	}
}
