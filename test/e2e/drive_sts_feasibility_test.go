//go:build e2e

package e2e

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// TestDriveStsFailOnStall: a StatefulSet of 2 pods without requests, then a LimitRange
// defaulting cpu requests to 200m and a requests.cpu quota of 250m: the new pods are charged
// 200m each, so the second create is refused. `drive sts/db --fail-on-stall` exits 3 before
// any write (the StatefulSet unchanged: no partition, no lease).
func TestDriveStsFailOnStall(t *testing.T) {
	t.Parallel()
	c := framework.Get(t)
	ns := c.Namespace(t)
	stsUnderCPUQuota(t, c, ns)
	before, err := c.Client.AppsV1().StatefulSets(ns).Get(t.Context(), "db", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res := c.Plugin(t, "drive", "sts/db", "-n", ns, "--image", "app=nginx:1.19", "--checks", "quota", "--fail-on-stall")
	t.Logf("drive --fail-on-stall: exit %d\n%s%s", res.ExitCode, res.Stdout, res.Stderr)
	if res.ExitCode != 3 || !strings.Contains(res.Stderr, "exceeded quota: cpu") || !strings.Contains(res.Stderr, "nothing changed") {
		t.Fatalf("drive --fail-on-stall: exit %d, want 3 naming the quota and nothing changed", res.ExitCode)
	}
	after, err := c.Client.AppsV1().StatefulSets(ns).Get(t.Context(), "db", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if after.ResourceVersion != before.ResourceVersion {
		t.Errorf("the StatefulSet changed (resourceVersion %s -> %s): want no write", before.ResourceVersion, after.ResourceVersion)
	}
}
