//go:build e2e

package e2e

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// TestViewerRoleRunsPreviewAndHistoryOnly binds deploy/rbac/rollplan-viewer.yaml to a user and
// runs the plugin as that user (impersonated with --as, as kubectl does): preview, history and
// completion work; preview says it falls back from the server-side dry run; undo, and a user
// without the binding, get the API server's forbidden message naming the user and the verb.
func TestViewerRoleRunsPreviewAndHistoryOnly(t *testing.T) {
	c := framework.Get(t)
	ns := c.Namespace(t)
	c.CreateDeployment(t, ns, framework.NewDeployment("web").Replicas(3).Image("nginx:1.18"))
	c.WaitForRollout(t, ns, "web", time.Minute)
	c.UpdateDeployment(t, ns, "web", func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "nginx:1.19" })
	c.WaitForRollout(t, ns, "web", time.Minute)

	role := filepath.Join(c.RootDir, "deploy", "rbac", "rollplan-viewer.yaml")
	for _, args := range [][]string{
		{"apply", "-n", ns, "-f", role},
		{"create", "rolebinding", "jane-viewer", "-n", ns, "--role=rollplan-viewer", "--user=jane"},
	} {
		if res := c.Kubectl(t, args...); res.ExitCode != 0 {
			t.Fatalf("kubectl %v: %s", args, res.Stderr)
		}
	}
	as := func(user string, args ...string) framework.Result {
		return c.Plugin(t, append(args, "-n", ns, "--as", user)...)
	}

	res := as("jane", "history", "deploy/web")
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "nginx:1.18") || !strings.Contains(res.Stdout, "nginx:1.19") {
		t.Errorf("history as jane: exit %d\nstdout:\n%s\nstderr:\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}

	res = as("jane", "preview", "deploy/web", "--image", "app=nginx:1.20")
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "web-") {
		t.Errorf("preview as jane: exit %d\nstdout:\n%s\nstderr:\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	if !strings.Contains(res.Stderr+res.Stdout, "no permission for a server-side dry run") {
		t.Errorf("preview as jane does not say it fell back from the server-side dry run:\nstdout:\n%s\nstderr:\n%s", res.Stdout, res.Stderr)
	}

	res = c.Plugin(t, "__complete", "history", "-n", ns, "--as", "jane", "") // the word to complete comes last
	if res.ExitCode != 0 || !strings.HasPrefix(res.Stdout, "web\n") {
		t.Errorf("completion as jane: exit %d, %q", res.ExitCode, res.Stdout)
	}

	// What the Role does not allow: a clear forbidden error, nothing changed.
	before := c.WaitForRollout(t, ns, "web", time.Minute)
	res = as("jane", "undo", "deploy/web")
	wantForbidden := `User "jane" cannot patch resource "deployments" in API group "apps" in the namespace "` + ns + `"`
	if res.ExitCode != 1 || !strings.Contains(res.Stderr, wantForbidden) {
		t.Errorf("undo as jane: exit %d, want 1 and %q\nstderr:\n%s", res.ExitCode, wantForbidden, res.Stderr)
	}
	after := c.WaitForRollout(t, ns, "web", time.Minute)
	if after.ResourceVersion != before.ResourceVersion {
		t.Errorf("the refused undo changed the Deployment (resourceVersion %s -> %s)", before.ResourceVersion, after.ResourceVersion)
	}

	res = as("bob", "history", "deploy/web")
	wantForbidden = `User "bob" cannot get resource "deployments" in API group "apps" in the namespace "` + ns + `"`
	if res.ExitCode != 1 || !strings.Contains(res.Stderr, wantForbidden) {
		t.Errorf("history as bob (no binding): exit %d, want 1 and %q\nstderr:\n%s", res.ExitCode, wantForbidden, res.Stderr)
	}
}
