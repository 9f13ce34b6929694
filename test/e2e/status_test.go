//go:build e2e

package e2e

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

var stepRE = regexp.MustCompile(`  step (\d+)/(\d+)  `)

// steps returns the "step k/n" of each line of a status --watch output, in order.
func steps(t *testing.T, out string) (ks []int, n int) {
	t.Helper()
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		m := stepRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		k, _ := strconv.Atoi(m[1])
		n, _ = strconv.Atoi(m[2])
		ks = append(ks, k)
	}
	return ks, n
}

// TestStatusWatchCompletes: a 20-replica 25%/25% rollout whose pods take 1 s to become Ready;
// `status --watch` (not a terminal: a line per change) reports the steps of the plan in
// order, what the controller waits for, and exits 0 with the rollout complete.
func TestStatusWatchCompletes(t *testing.T) {
	c := framework.Get(t)
	ns := c.Namespace(t)
	c.CreateDeployment(t, ns, framework.NewDeployment("web").Replicas(20).RollingUpdate("25%", "25%").ReadyAfter(time.Second, 0))
	c.WaitForRollout(t, ns, "web", time.Minute)
	c.UpdateDeployment(t, ns, "web", func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "nginx:1.19" })
	out := watchRolledOut(t, c, ns, "web", ns+"/web  ", 20, "deploy/web", "-n", ns)
	ks, n := steps(t, out)
	if n < 4 || len(ks) == 0 || ks[len(ks)-1] != n {
		t.Fatalf("steps %v of %d: want the last line at step n of n (n >= 4)", ks, n)
	}
	distinct := 1
	for i := 1; i < len(ks); i++ {
		if ks[i] < ks[i-1] {
			t.Errorf("steps went back: %v", ks)
		}
		if ks[i] != ks[i-1] {
			distinct++
		}
	}
	if distinct < 3 {
		t.Errorf("steps %v: want at least 3 distinct steps reported in order", ks)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if last := lines[len(lines)-1]; !strings.Contains(last, "took ") {
		t.Errorf("last line %q: want the time it took", last)
	}
	if !strings.Contains(out, "  eta ") {
		t.Error("no line gives the time model's ETA (pods of the first rollout measured)")
	}
	if !strings.Contains(out, "waiting for availability before scaling old down") {
		t.Error("no line says the controller waits for availability before scaling old down")
	}
}

// watchRolledOut runs `status --watch --timeout 2m` with args and fails the test unless it
// exits 0 with its last line starting with prefix and giving kubectl's success message for
// ns/name, and the Deployment is then complete with replicas updated pods. It returns
// stdout.
func watchRolledOut(t *testing.T, c *framework.Cluster, ns, name, prefix string, replicas int32, args ...string) string {
	t.Helper()
	res := c.Plugin(t, append([]string{"status", "--watch", "--timeout", "2m"}, args...)...)
	t.Logf("status --watch %s:\n%s", strings.Join(args, " "), res.Stdout)
	lines := strings.Split(strings.TrimSpace(res.Stdout), "\n")
	if last := lines[len(lines)-1]; res.ExitCode != 0 || !strings.HasPrefix(last, prefix) || !strings.Contains(last, fmt.Sprintf("deployment %q successfully rolled out", name)) {
		t.Fatalf("status --watch: exit %d, want 0 and the last line starting %q with %s rolled out\nstderr: %s", res.ExitCode, prefix, name, res.Stderr)
	}
	if d := c.WaitForRollout(t, ns, name, 5*time.Second); d.Status.UpdatedReplicas != replicas {
		t.Errorf("after status exited: %d updated replicas, want %d", d.Status.UpdatedReplicas, replicas)
	}
	return res.Stdout
}

// TestStatusWatchDeadline: pods that never become Ready and progressDeadlineSeconds 4:
// `status --watch --timeout 1s` exits 5 first; then `status --watch` warns, and exits 3 once
// the controller reports ProgressDeadlineExceeded, with kubectl's message. `status --all`
// prints one line per Deployment and exits 3 too.
func TestStatusWatchDeadline(t *testing.T) {
	c := framework.Get(t)
	ns := c.Namespace(t)
	c.CreateDeployment(t, ns, framework.NewDeployment("api").Replicas(2))
	c.CreateDeployment(t, ns, framework.NewDeployment("web").Replicas(4).ProgressDeadline(4))
	c.WaitForRollout(t, ns, "api", time.Minute)
	c.WaitForRollout(t, ns, "web", time.Minute)
	c.UpdateDeployment(t, ns, "web", func(d *appsv1.Deployment) { framework.SetHold(&d.Spec.Template, true) })

	res := c.Plugin(t, "status", "deploy/web", "-n", ns, "--watch", "--timeout", "1s")
	if res.ExitCode != 5 || !strings.Contains(res.Stderr, "timed out after 1s") {
		t.Errorf("--timeout 1s: exit %d, want 5\nstdout: %s\nstderr: %s", res.ExitCode, res.Stdout, res.Stderr)
	}

	began := time.Now()
	res = c.Plugin(t, "status", "deploy/web", "-n", ns, "--watch", "--timeout", "1m")
	t.Logf("status --watch (%s):\n%s", time.Since(began).Round(time.Millisecond), res.Stdout)
	if res.ExitCode != 3 || !strings.Contains(res.Stderr, `error: deployment "web" exceeded its progress deadline`) {
		t.Fatalf("exit %d, want 3 with kubectl's message\nstderr: %s", res.ExitCode, res.Stderr)
	}
	if !strings.Contains(res.Stdout, "WARNING: no progress for") {
		t.Error("no warning before the deadline passed")
	}
	lines := strings.Split(strings.TrimSpace(res.Stdout), "\n")
	if last := lines[len(lines)-1]; !strings.Contains(last, `deployment "web" exceeded its progress deadline`) {
		t.Errorf("last line %q: want kubectl's deadline message", last)
	}

	res = c.Plugin(t, "status", "--all", "-n", ns)
	t.Logf("status --all:\n%s", res.Stdout)
	lines = strings.Split(strings.TrimSpace(res.Stdout), "\n")
	if res.ExitCode != 3 || len(lines) != 2 || !strings.HasPrefix(lines[0], ns+"/api  ") || !strings.Contains(lines[0], "successfully rolled out") ||
		!strings.HasPrefix(lines[1], ns+"/web  ") {
		t.Errorf("status --all: exit %d, want 3 and a line for api (complete) then web\n%s%s", res.ExitCode, res.Stdout, res.Stderr)
	}
}
