//go:build e2e

package e2e

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/drive"
	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// TestDriveDryRunAndRefusals: --dry-run (client and server) prints the plan and where it
// differs from the controller's, and changes nothing; a Deployment with
// revisionHistoryLimit 0 is refused with the reason.
func TestDriveDryRunAndRefusals(t *testing.T) {
	s := newDriveSetup(t, 10, "0", "25%")
	before := s.c.Kubectl(t, "get", "deploy,rs", "-n", s.ns, "-o", "jsonpath={range .items[*]}{.metadata.name}={.metadata.resourceVersion} {end}").Stdout
	for _, mode := range []string{"--dry-run", "--dry-run=server"} {
		res := s.plugin(t, "drive", "deploy/web", "--image", "app=nginx:1.19", mode)
		if res.ExitCode != 0 {
			t.Fatalf("drive %s: exit %d\n%s", mode, res.ExitCode, res.Stderr)
		}
		for _, want := range []string{"extra pod (maxSurge 0)", "The controller (v1.36.3", "Where drive differs, and why:", "maxSurge is 0", "(dry run: nothing changed)"} {
			if !strings.Contains(res.Stdout, want) {
				t.Errorf("drive %s: output lacks %q:\n%s", mode, want, res.Stdout)
			}
		}
		if mode == "--dry-run=server" && !strings.Contains(res.Stdout, "the API server accepts the takeover write") {
			t.Errorf("drive --dry-run=server did not report the server dry run:\n%s", res.Stdout)
		}
	}
	after := s.c.Kubectl(t, "get", "deploy,rs", "-n", s.ns, "-o", "jsonpath={range .items[*]}{.metadata.name}={.metadata.resourceVersion} {end}").Stdout
	if before != after {
		t.Errorf("a dry run changed objects:\nbefore %s\nafter  %s", before, after)
	}

	c, ns := s.c, s.ns
	d := c.CreateDeployment(t, ns, framework.NewDeployment("nohistory").Replicas(2).RevisionHistoryLimit(0))
	c.WaitForRollout(t, ns, d.Name, time.Minute)
	res := c.Plugin(t, "drive", "deploy/nohistory", "-n", ns, "--image", "app=nginx:1.19", "--yes")
	if res.ExitCode != 1 || !strings.Contains(res.Stderr, "revisionHistoryLimit 0") {
		t.Errorf("drive of a Deployment with revisionHistoryLimit 0: exit %d, want 1 with the reason: %s", res.ExitCode, res.Stderr)
	}
}

// TestDriveAdoptInFlight: the controller's own rollout stalls (new pods held at new 5, old
// 8); drive refuses it without --adopt, and with --adopt takes it over where it stands and
// finishes it without a controller write, within the bounds.
func TestDriveAdoptInFlight(t *testing.T) {
	s := newDriveSetup(t, 10, "25%", "25%")
	pre := s.c.RecordReplicaSets(t, s.ns)
	s.c.UpdateDeployment(t, s.ns, "web", func(d *appsv1.Deployment) {
		d.Spec.Template.Spec.Containers[0].Image = "nginx:1.19"
		framework.SetHold(&d.Spec.Template, true)
	})
	pre.WaitFor(t, 30*time.Second, func(w []framework.RSWrite, _ []framework.ScalingEvent) bool { return len(w) >= 3 })
	pre.WaitQuiet(t, 2*time.Second, 30*time.Second)
	pre.Stop()

	res := s.plugin(t, "drive", "deploy/web", "--yes")
	if res.ExitCode != 1 || !strings.Contains(res.Stderr, "rollout in flight") || !strings.Contains(res.Stderr, "--adopt") {
		t.Fatalf("drive without --adopt: exit %d, want 1 naming --adopt: %s", res.ExitCode, res.Stderr)
	}
	mon := watchPods(t, s.c, s.ns, int(s.bounds.MaxPods()), int(s.bounds.MinAvailable()))
	rec := s.c.RecordReplicaSets(t, s.ns)
	drv := s.startDrive(t, nil, "drive", "deploy/web", "--adopt", "--yes")
	s.waitState(t, 30*time.Second, func(*drive.State, *appsv1.Deployment) bool { return true })
	stop := s.c.AutoRelease(t, s.ns, "")
	code := drv.Wait(t, 90*time.Second)
	stop()
	if code != 0 {
		t.Fatalf("drive --adopt: exit %d\n%s", code, drv.Stderr.String())
	}
	t.Logf("drive --adopt:\n%s%s", drv.Stdout.String(), drv.Stderr.String())
	writes := rec.WaitQuiet(t, 2*time.Second, 30*time.Second)
	if ev := rec.Events(); len(ev) != 0 {
		t.Errorf("the deployment-controller scaled ReplicaSets after the adoption: %v (drive wrote %v)", ev, s.describe(writes))
	}
	mon.assertBounds(t)
	s.assertHandedBack(t, 2, "nginx:1.19", 10)
}

// TestDrivePromptOnTerminal runs drive on a pseudo-terminal (util-linux `script`): it asks
// before each step; "c" then "h" makes step 1 and holds (exit 4); run again, "a" at the next
// prompt aborts: walked back and handed back with the previous template (exit 0).
func TestDrivePromptOnTerminal(t *testing.T) {
	script, err := exec.LookPath("script")
	if err != nil {
		t.Skip("no `script` command (util-linux) to give drive a terminal")
	}
	s := newDriveSetup(t, 4, "25%", "25%")
	run := func(answers string, args ...string) (int, string) {
		cmdline := strings.Join(append([]string{s.c.PluginPath()}, append(args, "-n", s.ns)...), " ")
		cmd := exec.Command(script, "-qfec", cmdline, "/dev/null")
		cmd.Env = s.c.Env()
		cmd.Stdin = strings.NewReader(answers)
		out, _ := cmd.CombinedOutput()
		framework.CheckRace(t, cmdline, string(out))
		return cmd.ProcessState.ExitCode(), strings.ReplaceAll(string(out), "\r", "")
	}
	code, out := run("c\nh\n", "drive", "deploy/web", "--image", "app=nginx:1.19")
	if code != 4 || !strings.Contains(out, "step 1/3: create web-") || !strings.Contains(out, "[c]ontinue, [h]old, [a]bort?") ||
		!strings.Contains(out, "held at the prompt before step 2/3") {
		t.Fatalf("first run: exit %d, want 4 after step 1 and a hold at the prompt:\n%s", code, out)
	}
	code, out = run("a\n", "drive", "deploy/web")
	if code != 0 || !strings.Contains(out, "walked back") {
		t.Fatalf("second run: exit %d, want 0 after an abort at the prompt:\n%s", code, out)
	}
	s.assertHandedBack(t, 3, "nginx:1.18", 4)
}
