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

// TestPreviewMixedManifestSet: `preview -f DIR` of a set holding a new Deployment and a
// ConfigMap whose changed key the live sees-a reads: -o json lists the set's plan (Create)
// and sees-a's restart (ConfigRestart); the human output has both sections; nothing changes.
func TestPreviewMixedManifestSet(t *testing.T) {
	c := framework.Get(t)
	ns := c.Namespace(t)
	setConfigMap(t, c, ns, "app", map[string]string{"A": "1"})
	createReloadDeployment(t, c, ns, framework.NewDeployment("sees-a").Replicas(2), func(d *appsv1.Deployment) {
		d.Spec.Template.Spec.Containers[0].Env = []corev1.EnvVar{keyEnv("app", "A")}
	})
	c.WaitForRollout(t, ns, "sees-a", time.Minute)
	dir := t.TempDir()
	writeManifests(t, dir, map[string]string{
		"fresh.yaml": manifestDeployment("fresh", 2, "nginx:1.18"),
		"app.yaml":   "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app}\ndata: {A: \"2\"}\n",
	})
	before := fingerprintOf(t, c, ns, "sees-a")
	list, res := previewList(t, c, ns, "-f", dir)
	if res.ExitCode != 0 {
		t.Fatalf("preview -f: exit %d: %s", res.ExitCode, res.Stderr)
	}
	var got []string
	for _, p := range list.Items {
		if p.Manifest != nil {
			got = append(got, p.Deployment.Name+" "+p.Manifest.Change+" "+p.Outcome)
		}
	}
	if want := "fresh Create Complete,sees-a ConfigRestart Complete"; strings.Join(got, ",") != want {
		t.Errorf("items %q, want %q", strings.Join(got, ","), want)
	}
	human := c.Plugin(t, "preview", "-n", ns, "-f", dir)
	if human.ExitCode != 0 || !strings.Contains(human.Stdout, "Config restarts: ") ||
		!strings.Contains(human.Stdout, "Restart of deployment "+ns+"/sees-a (its pods would see a changed key of configmap/app):") {
		t.Errorf("human: exit %d:\n%s\n%s", human.ExitCode, human.Stdout, human.Stderr)
	}
	cm, err := c.Client.CoreV1().ConfigMaps(ns).Get(t.Context(), "app", metav1.GetOptions{})
	if err != nil || cm.Data["A"] != "1" {
		t.Errorf("the ConfigMap changed: %v %v", cm.Data, err)
	}
	if _, err := c.Client.AppsV1().Deployments(ns).Get(t.Context(), "fresh", metav1.GetOptions{}); err == nil {
		t.Error("deployment fresh was created")
	}
	if after := fingerprintOf(t, c, ns, "sees-a"); after != before {
		t.Errorf("sees-a changed: %s -> %s", before, after)
	}
}
