//go:build e2e

package e2e

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// TestPreviewMixedManifestSet: `preview -f DIR` of a set holding a new Deployment and a
// ConfigMap whose changed key the live sees-a reads: -o json lists the set's plan (Create)
// and sees-a's restart (ConfigRestart); the human output has both sections; nothing changes.
func TestPreviewMixedManifestSet(t *testing.T) {
	f := newReloadNamespace(t)
	c, ns := f.c, f.ns
	f.setConfigMap("app", map[string]string{"A": "1"})
	f.createRolling(framework.NewDeployment("sees-a").Replicas(2), readsKey("app", "A"))
	c.WaitForRollout(t, ns, "sees-a", time.Minute)
	dir := t.TempDir()
	writeManifests(t, dir, map[string]string{
		"fresh.yaml": manifestDeployment("fresh", 2, "nginx:1.18"),
		"app.yaml":   "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app}\ndata: {A: \"2\"}\n",
	})
	before := f.fingerprint("sees-a")
	list, res := previewList(t, c, ns, "-f", dir)
	if res.ExitCode != 0 {
		t.Fatalf("preview -f: exit %d: %s", res.ExitCode, res.Stderr)
	}
	var got []string
	for _, p := range list.Items {
		if p.Manifest != nil {
			got = append(got, p.Deployment.Name+" "+p.Manifest.Change+" "+p.Outcome)
		}
		if restart := p.Manifest != nil && p.Manifest.Change == "ConfigRestart"; restart != (p.Config != nil) ||
			(restart && (p.Config.Decision != "restart" || len(p.Config.References) != 1 || p.Config.References[0].Name != "app")) {
			t.Errorf("%s: config section %+v; want reload's (decision restart, configmap/app) on the config restart only", p.Deployment.Name, p.Config)
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
	if after := f.fingerprint("sees-a"); after != before {
		t.Errorf("sees-a changed: %s -> %s", before, after)
	}
}
