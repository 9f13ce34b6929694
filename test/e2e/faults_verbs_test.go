//go:build e2e

package e2e

import (
	"slices"
	"testing"
	"time"

	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// TestFaultVerbThroughAPIServerOutage (issue 11, "undo, pause, resume, restart: retried on
// transient errors, never applied twice"): `restart -l tier=x --yes` is started while
// kube-apiserver is down. Its selection LIST, its reads and its writes are sent again
// until the API server serves: it exits 0 with kubectl's result lines, and each selected
// Deployment is restarted exactly once (revision 2, not 3), the other not at all.
func TestFaultVerbThroughAPIServerOutage(t *testing.T) {
	c := framework.Get(t)
	ns := c.Namespace(t)
	createTiered(t, c, ns, "x", "api", "web")
	createTiered(t, c, ns, "y", "db")

	c.StopComponent(t, framework.KubeAPIServer, false)
	cmd := c.StartPlugin(t, nil, "restart", "-n", ns, "-l", "tier=x", "--yes")
	time.Sleep(3 * time.Second) // the plugin meets a refused connection first
	if cmd.Exited() {
		t.Fatalf("restart ended while the API server was down: exit %d\nstderr:\n%s", cmd.ExitCode(), cmd.Stderr.String())
	}
	c.StartComponent(t, framework.KubeAPIServer)
	if code := cmd.Wait(t, 2*time.Minute); code != 0 {
		t.Fatalf("restart: exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, cmd.Stdout.String(), cmd.Stderr.String())
	}
	if got, want := resultLines(cmd.Stdout.String()), []string{"deployment.apps/api restarted", "deployment.apps/web restarted"}; !slices.Equal(got, want) {
		t.Errorf("result lines %q, want %q\nstderr:\n%s", got, want, cmd.Stderr.String())
	}
	for name, want := range map[string]string{"api": "2", "web": "2", "db": "1"} {
		d := c.WaitForRollout(t, ns, name, time.Minute)
		if got := d.Annotations["deployment.kubernetes.io/revision"]; got != want {
			t.Errorf("%s: revision %s, want %s (a restart applied twice makes 3)", name, got, want)
		}
	}
}
