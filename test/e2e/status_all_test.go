//go:build e2e

package e2e

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// TestStatusAllNamespaces: `status -A -l` prints one line per selected Deployment of two
// namespaces (namespace/name, in namespace order), and `status -A -l --watch` follows a
// rollout in one of them to its end, exit 0.
func TestStatusAllNamespaces(t *testing.T) {
	c := framework.Get(t)
	nsA, nsB := c.Namespace(t), c.Namespace(t)
	a, b := "sa-"+nsA[len(nsA)-5:], "sb-"+nsA[len(nsA)-5:]
	c.CreateDeployment(t, nsA, framework.NewDeployment(a).Replicas(4).ReadyAfter(time.Second, 0))
	c.CreateDeployment(t, nsB, framework.NewDeployment(b).Replicas(4).ReadyAfter(time.Second, 0))
	c.WaitForRollout(t, nsA, a, time.Minute)
	c.WaitForRollout(t, nsB, b, time.Minute)
	sel := "app in (" + a + "," + b + ")"
	res := c.Plugin(t, "status", "-A", "-l", sel)
	lines := strings.Split(strings.TrimSpace(res.Stdout), "\n")
	want := []string{nsA + "/" + a + "  ", nsB + "/" + b + "  "}
	if nsB < nsA {
		want[0], want[1] = want[1], want[0]
	}
	if res.ExitCode != 0 || len(lines) != 2 || !strings.HasPrefix(lines[0], want[0]) || !strings.HasPrefix(lines[1], want[1]) ||
		!strings.Contains(res.Stdout, `deployment "`+a+`" successfully rolled out`) {
		t.Fatalf("status -A: exit %d, want 0 and a line each starting %q:\n%s\nstderr: %s", res.ExitCode, want, res.Stdout, res.Stderr)
	}
	c.UpdateDeployment(t, nsB, b, func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "nginx:1.19" })
	watchRolledOut(t, c, nsB, b, nsB+"/"+b+"  ", 4, "-A", "-l", sel)
}
