//go:build e2e

package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// A rollout in progress whose surge pods a pods quota (hard = replicas, maxSurge 2,
// maxUnavailable 0) refuses: the controller created the new ReplicaSet, its pod creates are
// refused, and status's checks on the remaining plan name the stall and its quota.
func TestStatusFeasibilityQuotaStall(t *testing.T) {
	t.Parallel()
	c := framework.Get(t)
	ns := c.Namespace(t)
	webUnderPodsQuota(t, c, ns, "2", "0")
	c.UpdateDeployment(t, ns, "web", func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "nginx:1.19" })
	waitRefused(t, c, ns, "nginx:1.19", 30*time.Second)

	res := c.Plugin(t, "status", "deploy/web", "-n", ns)
	t.Logf("status: exit %d\n%s%s", res.ExitCode, res.Stdout, res.Stderr)
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "Will stall before the next write: Quota: ") ||
		!strings.Contains(res.Stdout, "exceeded quota: pods") {
		t.Fatalf("status: exit %d, want 0 and the predicted Quota stall naming the pods quota", res.ExitCode)
	}
	res = c.Plugin(t, "status", "deploy/web", "-n", ns, "-o", "json")
	var got v1alpha1.RolloutStatus
	if err := json.Unmarshal([]byte(res.Stdout), &got); err != nil {
		t.Fatalf("status -o json: %v\n%s%s", err, res.Stdout, res.Stderr)
	}
	if f := got.Feasibility; f == nil || f.Stall == nil || f.Stall.Reason != "Quota" || !strings.Contains(strings.Join(f.Stall.Objects, ","), "resourcequota/pods") {
		t.Errorf("status -o json: feasibility %+v, want a Quota stall naming resourcequota/pods", got.Feasibility)
	}
}

// waitRefused waits until the ReplicaSet of image reports its pod creates refused by a quota
// (ReplicaFailure, "exceeded quota").
func waitRefused(t *testing.T, c *framework.Cluster, ns, image string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		rss, err := c.Client.AppsV1().ReplicaSets(ns).List(t.Context(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, rs := range rss.Items {
			if rs.Spec.Template.Spec.Containers[0].Image != image {
				continue
			}
			for _, cond := range rs.Status.Conditions {
				if cond.Type == appsv1.ReplicaSetReplicaFailure && strings.Contains(cond.Message, "exceeded quota") {
					return
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the ReplicaSet of %s has no ReplicaFailure exceeded quota after %s", image, timeout)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
