//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// TestPreviewBadInputLive: each bad input against the real API server is a one-line error
// with exit code 1, and no preview (good or bad) changes the Deployment or its ReplicaSets.
func TestPreviewBadInputLive(t *testing.T) {
	c := framework.Get(t)
	ns := c.Namespace(t)
	d := c.CreateDeployment(t, ns, framework.NewDeployment("web").Replicas(3).RollingUpdate("25%", "25%"))
	d = c.WaitForRollout(t, ns, d.Name, time.Minute)
	rvBefore := resourceVersions(t, c, ns)

	dir := t.TempDir()
	badSurge := filepath.Join(dir, "surge.yaml")
	if err := os.WriteFile(badSurge, []byte(`apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: "150", maxUnavailable: "120%"}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: app, image: nginx:1.19}]}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	malformed := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(malformed, []byte("kind: Deployment\nspec: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"unknown deployment", []string{"nope"}, `"nope" not found`},
		{"not a deployment", []string{"svc/web"}, "services"},
		{"malformed manifest", []string{"web", "-f", malformed}, "bad.yaml"},
		{"invalid maxUnavailable", []string{"web", "-f", badSurge}, "maxUnavailable"},
		{"unknown container", []string{"web", "--image", "nginx=nginx:1.19"}, `"nginx"`},
		{"unknown revision", []string{"web", "--to-revision", "7"}, "revision 7"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := c.Plugin(t, append([]string{"preview", "-n", ns}, tc.args...)...)
			lines := strings.Split(strings.TrimSpace(res.Stderr), "\n")
			if res.ExitCode != 1 || len(lines) != 1 || !strings.Contains(lines[0], tc.want) || res.Stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %q: want exit 1 and one line naming %s", res.ExitCode, res.Stdout, res.Stderr, tc.want)
			}
		})
	}
	// A good preview (dry run included) changes nothing either.
	if res := c.Plugin(t, "preview", "-n", ns, "web", "--image", "app=nginx:1.19", "--replicas", "5"); res.ExitCode != 0 {
		t.Fatalf("preview: exit %d: %s", res.ExitCode, res.Stderr)
	}
	if diff := diffMaps(rvBefore, resourceVersions(t, c, ns)); diff != "" {
		t.Errorf("objects changed by previews: %s", diff)
	}
}

// resourceVersions maps every Deployment and ReplicaSet of ns to its resourceVersion.
func resourceVersions(t *testing.T, c *framework.Cluster, ns string) map[string]string {
	t.Helper()
	out := map[string]string{}
	ds, err := c.Client.AppsV1().Deployments(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds.Items {
		out["deploy/"+d.Name] = d.ResourceVersion
	}
	rss, err := c.Client.AppsV1().ReplicaSets(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, rs := range rss.Items {
		out["rs/"+rs.Name] = rs.ResourceVersion
	}
	return out
}

func diffMaps(a, b map[string]string) string {
	var out []string
	for k, v := range a {
		if b[k] != v {
			out = append(out, k+": "+v+" -> "+b[k])
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k+" added")
		}
	}
	return strings.Join(out, ", ")
}
