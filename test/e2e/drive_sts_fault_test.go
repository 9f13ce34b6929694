//go:build e2e

package e2e

import (
	"testing"
	"time"

	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// TestFaultDriveStsAPIServerRestart (issue 21): kube-apiserver is killed and restarted
// (5 s down) while drive sts/db walks its partition (--interval 2s between steps); the
// drive rides through it (its lease outlives the outage) and ends with exit 0 and every
// pod on the new revision. Serial: it restarts the shared API server. The step timeout is
// the Deployment fault tests' (minutes, not seconds): after the restart the controllers'
// informers relist on client-go's reflector backoff (up to 30 s between attempts), measured
// at 31 s before the StatefulSet controller served again on a loaded machine, and a 40 s
// --timeout then held the drive at a pod the controller had not yet replaced.
func TestFaultDriveStsAPIServerRestart(t *testing.T) {
	c := framework.Get(t)
	ns := c.Namespace(t)
	old := createSettledSts(t, c, ns, "db")
	d := c.StartPlugin(t, nil, "drive", "sts/db", "-n", ns, "--image", "app=nginx:1.19", "--step", "1", "--interval", "2s", "--timeout", "3m", "--lease-duration", "90s")
	time.Sleep(3 * time.Second) // the change and the first step are written
	if d.Exited() {
		t.Fatalf("drive ended before the outage: exit %d\n%s", d.ExitCode(), d.Stderr.String())
	}
	outage := c.Outage(t, framework.KubeAPIServer, 5*time.Second, true)
	if code := d.Wait(t, 4*time.Minute); code != 0 {
		t.Fatalf("drive through an API server restart: exit %d\nstdout:\n%s\nstderr:\n%s", code, d.Stdout.String(), d.Stderr.String())
	}
	revs, _ := podRevisions(t, c, ns, "db")
	for i, r := range revs {
		if r == old {
			t.Errorf("pod db-%d still on the old revision %s after the drive", i, old)
		}
	}
	t.Logf("FAULT drive-sts: kube-apiserver unavailable %s mid-walk; drive completed, pods on %v", outage.Round(100*time.Millisecond), revs)
}
