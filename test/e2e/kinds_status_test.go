//go:build e2e

package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// TestKindsStatusProgress: a StatefulSet (2 replicas, RollingUpdate) whose update holds its
// new pods unready (kwok's rollplan.test/hold stage): the controller replaces the highest
// ordinal and waits for it. status prints kubectl's verdict (the same line as kubectl rollout
// status), then step 0 of 2 and the pod the controller waits for.
func TestKindsStatusProgress(t *testing.T) {
	t.Parallel()
	c := framework.Get(t)
	ns := c.Namespace(t)
	createKind(t, c, ns, "sts", "db")
	kindRolledOut(t, c, ns, "sts/db")
	res := c.Kubectl(t, "-n", ns, "patch", "sts/db", "--type", "strategic", "-p",
		`{"spec":{"template":{"metadata":{"labels":{"rollplan.test/hold":"status"}},"spec":{"containers":[{"name":"app","image":"nginx:1.19"}]}}}}`)
	if res.ExitCode != 0 {
		t.Fatalf("patch: %s", res.Stderr)
	}
	var out string
	deadline := time.Now().Add(40 * time.Second)
	for {
		r := c.Plugin(t, "status", "sts/db", "-n", ns)
		out = r.Stdout
		if r.ExitCode == 0 && strings.Contains(out, "waiting for: pods to become Ready: db-1") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("status never named db-1 as the pod the controller waits for:\n%s\n%s", r.Stdout, r.Stderr)
		}
		time.Sleep(time.Second)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[1], "  step 0 of 2 (update revision db-") {
		t.Errorf("status: want kubectl's verdict and the step line first, got:\n%s", out)
	}
	// kubectl's verdict read right after ours: the two reads are moments apart and the
	// controller may move between them (db-1's deletion seen by one read, not the other:
	// "partitioned roll out" against "1 pods to be ready"), so they are compared again
	// until the rollout holds still at the unready db-1 (10 s).
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		first := strings.SplitN(strings.TrimSpace(c.Plugin(t, "status", "sts/db", "-n", ns).Stdout), "\n", 2)[0]
		k := strings.TrimSpace(c.Kubectl(t, "-n", ns, "rollout", "status", "sts/db", "--watch=false").Stdout)
		if first == k {
			break
		}
		if time.Now().After(end) {
			t.Errorf("first line %q, kubectl rollout status %q", first, k)
			break
		}
	}
}
