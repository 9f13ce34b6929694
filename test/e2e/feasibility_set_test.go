//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// A pods quota of exactly web's 2 pods and maxUnavailable 0: a manifest set changing web's
// image (beside a Deployment it creates) previews "Stalled at step 1" with the quota's
// reason and exits 3 with --fail-on-stall, and reload without --yes shows the same stall on
// web's config restart (--dry-run=client: nothing written).
func TestFeasibilityManifestSetAndReload(t *testing.T) {
	t.Parallel()
	f := newReloadFixture(t)
	c, ns := f.c, f.ns
	q := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "pods", Namespace: ns},
		Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("2")}}}
	if _, err := c.Client.CoreV1().ResourceQuotas(ns).Create(t.Context(), q, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitQuotaUsed(t, c, ns, "pods", 0, 30*time.Second) // the quota is seen (and charged) before the pods come
	f.createRolling(framework.NewDeployment("web").Replicas(2), readsKey("app", "a"))
	c.WaitForRollout(t, ns, "web", time.Minute)
	waitQuotaUsed(t, c, ns, "pods", 2, 60*time.Second)

	dir := t.TempDir()
	manifest := `apiVersion: apps/v1
kind: Deployment
metadata: {name: %[1]s}
spec:
  replicas: %[2]d
  selector: {matchLabels: {app: %[1]s}}
  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}
  template:
    metadata: {labels: {app: %[1]s}}
    spec: {containers: [{name: app, image: "nginx:1.19"}]}
`
	for name, replicas := range map[string]int{"web": 2, "fresh": 1} {
		if err := os.WriteFile(filepath.Join(dir, name+".yaml"), []byte(fmt.Sprintf(manifest, name, replicas)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res := c.Plugin(t, "preview", "-f", dir, "-n", ns, "--fail-on-stall")
	t.Logf("preview -f: exit %d\n%s%s", res.ExitCode, res.Stdout, res.Stderr)
	if res.ExitCode != 3 || !strings.Contains(res.Stdout, "Stalled at step 1: Quota: ") || !strings.Contains(res.Stdout, "resourcequota/pods") ||
		!strings.Contains(res.Stdout, "FEASIBILITY") {
		t.Errorf("preview -f: exit %d, want 3, a FEASIBILITY column and a Quota stall at step 1 naming resourcequota/pods", res.ExitCode)
	}

	f.mustReload("deploy/web", "--adopt", "--yes")
	f.setConfigMap("app", map[string]string{"a": "2", "b": "1"})
	res = f.reload("deploy/web", "--dry-run=client")
	t.Logf("reload: exit %d\n%s%s", res.ExitCode, res.Stdout, res.Stderr)
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "Stalled at step 1: Quota: ") || !strings.Contains(res.Stdout, "Stalled@1:Quota") {
		t.Errorf("reload: exit %d, want 0 and the restart's Quota stall at step 1", res.ExitCode)
	}
}
