//go:build e2e

package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/drive"
	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// TestDriveConcurrentEdit edits the held Deployment's template while drive waits: drive
// stops with a message naming the edit, writes nothing more, and the edit is kept. A
// ReplicaSet scaled by hand stops it the same way, naming the field manager.
func TestDriveConcurrentEdit(t *testing.T) {
	t.Run("template", func(t *testing.T) {
		s := newDriveSetup(t, 4, "1", "0")
		rec := s.c.RecordReplicaSets(t, s.ns)
		drv := s.startDrive(t, nil, "drive", "deploy/web", "-f", s.manifest(t, "nginx:1.19", true), "--yes")
		rec.WaitFor(t, 30*time.Second, func(w []framework.RSWrite, _ []framework.ScalingEvent) bool { return len(w) >= 1 })
		time.Sleep(300 * time.Millisecond)
		s.c.UpdateDeployment(t, s.ns, "web", func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "nginx:1.20" })
		code := drv.Wait(t, 30*time.Second)
		if code != 1 || !strings.Contains(drv.Stderr.String(), "was edited while drive held it") || !strings.Contains(drv.Stderr.String(), "spec.template") {
			t.Fatalf("drive after a template edit: exit %d, want 1 with the edit named\nstderr:\n%s", code, drv.Stderr.String())
		}
		writes := rec.WaitQuiet(t, 2*time.Second, 20*time.Second)
		if len(writes) != 1 {
			t.Errorf("writes %v, want only the create", s.describe(writes))
		}
		d, err := s.c.Client.AppsV1().Deployments(s.ns).Get(t.Context(), "web", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if img := d.Spec.Template.Spec.Containers[0].Image; img != "nginx:1.20" || !drive.IsHeld(d) || !d.Spec.Paused {
			t.Errorf("after the stop: image %s, held %v, paused %v; want the edit kept and the Deployment held", img, drive.IsHeld(d), d.Spec.Paused)
		}
	})
	t.Run("replicaset scaled by hand", func(t *testing.T) {
		s := newDriveSetup(t, 4, "1", "0")
		rec := s.c.RecordReplicaSets(t, s.ns)
		drv := s.startDrive(t, nil, "drive", "deploy/web", "-f", s.manifest(t, "nginx:1.19", true), "--yes")
		rec.WaitFor(t, 30*time.Second, func(w []framework.RSWrite, _ []framework.ScalingEvent) bool { return len(w) >= 1 })
		res := s.c.Kubectl(t, "scale", "rs", s.old, "-n", s.ns, "--replicas=2")
		if res.ExitCode != 0 {
			t.Fatalf("kubectl scale rs: %s", res.Stderr)
		}
		code := drv.Wait(t, 30*time.Second)
		if code != 1 || !strings.Contains(drv.Stderr.String(), "was scaled by kubectl") {
			t.Fatalf("drive after kubectl scale rs: exit %d, want 1 naming kubectl\nstderr:\n%s", code, drv.Stderr.String())
		}
		rs, err := s.c.Client.AppsV1().ReplicaSets(s.ns).Get(t.Context(), s.old, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if ptr.Deref(rs.Spec.Replicas, 0) != 2 {
			t.Errorf("old ReplicaSet at %d, want the hand-made 2 kept", ptr.Deref(rs.Spec.Replicas, 0))
		}
	})
}

// TestDriveReplicasChange scales the held Deployment (kubectl scale, as an autoscaler
// would) while drive waits: the paused controller ignores it, drive re-plans with the new
// bounds and ends with 14 new replicas.
func TestDriveReplicasChange(t *testing.T) {
	s := newDriveSetup(t, 10, "25%", "25%")
	// Bounds over the whole run: 10 replicas (at most 13, at least 8 available), then 14
	// (at most 18, at least 11).
	mon := watchPods(t, s.c, s.ns, 18, 8)
	rec := s.c.RecordReplicaSets(t, s.ns)
	drv := s.startDrive(t, nil, "drive", "deploy/web", "-f", s.manifest(t, "nginx:1.19", true), "--yes")
	rec.WaitFor(t, 30*time.Second, func(w []framework.RSWrite, _ []framework.ScalingEvent) bool { return len(w) >= 1 })
	res := s.c.Kubectl(t, "scale", "deploy/web", "-n", s.ns, "--replicas=14")
	if res.ExitCode != 0 {
		t.Fatalf("kubectl scale: %s", res.Stderr)
	}
	s.waitState(t, 30*time.Second, func(st *drive.State, _ *appsv1.Deployment) bool { return st.Replicas == 14 })
	stop := s.c.AutoRelease(t, s.ns, "")
	code := drv.Wait(t, 90*time.Second)
	stop()
	if code != 0 {
		t.Fatalf("drive: exit %d\nstderr:\n%s", code, drv.Stderr.String())
	}
	if !strings.Contains(drv.Stderr.String(), "changed from 10 to 14 while held") {
		t.Errorf("drive did not say it re-planned:\n%s", drv.Stderr.String())
	}
	rec.WaitQuiet(t, 2*time.Second, 30*time.Second)
	if ev := rec.Events(); len(ev) != 0 {
		t.Errorf("the deployment-controller scaled ReplicaSets: %v", ev)
	}
	mon.assertBounds(t)
	s.assertHandedBack(t, 2, "nginx:1.19", 14)
}

// TestDriveTwoDrivers: a second driver is refused while the first one's lease is valid;
// with --force it takes over and the first one stops without writing; the second one
// completes the rollout.
func TestDriveTwoDrivers(t *testing.T) {
	s := newDriveSetup(t, 4, "1", "0")
	rec := s.c.RecordReplicaSets(t, s.ns)
	first := s.startDrive(t, nil, "drive", "deploy/web", "-f", s.manifest(t, "nginx:1.19", true), "--yes")
	rec.WaitFor(t, 30*time.Second, func(w []framework.RSWrite, _ []framework.ScalingEvent) bool { return len(w) >= 1 })
	res := s.plugin(t, "drive", "deploy/web", "--yes")
	if res.ExitCode != 1 || !strings.Contains(res.Stderr, "is being driven by") {
		t.Fatalf("second driver without --force: exit %d, want 1 and the holder named\nstderr:\n%s", res.ExitCode, res.Stderr)
	}
	second := s.startDrive(t, nil, "drive", "deploy/web", "--yes", "--force")
	code := first.Wait(t, 30*time.Second)
	if code != 1 || !strings.Contains(first.Stderr.String(), "lost the hold") {
		t.Fatalf("first driver after the takeover: exit %d, want 1 (lost the hold)\nstderr:\n%s", code, first.Stderr.String())
	}
	stop := s.c.AutoRelease(t, s.ns, "")
	code = second.Wait(t, 90*time.Second)
	stop()
	if code != 0 {
		t.Fatalf("second driver: exit %d\nstderr:\n%s", code, second.Stderr.String())
	}
	if !strings.Contains(s.c.Kubectl(t, "get", "events", "-n", s.ns).Stdout, drive.ReasonLease) {
		t.Errorf("no %s event", drive.ReasonLease)
	}
	rec.WaitQuiet(t, 2*time.Second, 30*time.Second)
	if ev := rec.Events(); len(ev) != 0 {
		t.Errorf("the deployment-controller scaled ReplicaSets: %v", ev)
	}
	s.assertHandedBack(t, 2, "nginx:1.19", 4)
}

// TestDriveUnpauseGuard: without the guard, `kubectl rollout resume` on a held Deployment
// is accepted and the controller (strategy Recreate) scales the old ReplicaSet to 0 at once
// (the hazard); with `kubectl rollplan guard install` the same edit is refused, and the
// hand-back (drive.HandBack, what `kubectl rollplan resume` calls) still passes.
func TestDriveUnpauseGuard(t *testing.T) {
	c := framework.Get(t)
	if ok, err := drive.GuardInstalled(t.Context(), c.Client); err != nil || ok {
		t.Fatalf("the guard is installed already (%v): this test needs it absent at first", err)
	}
	t.Run("without the guard", func(t *testing.T) {
		s := newDriveSetup(t, 10, "25%", "25%")
		rec := s.c.RecordReplicaSets(t, s.ns)
		if res := s.plugin(t, "drive", "deploy/web", "--image", "app=nginx:1.19", "--yes", "--until-step", "1"); res.ExitCode != 4 {
			t.Fatalf("drive --until-step 1: exit %d\n%s", res.ExitCode, res.Stderr)
		}
		if res := s.c.Kubectl(t, "rollout", "resume", "deploy/web", "-n", s.ns); res.ExitCode != 0 {
			t.Fatalf("kubectl rollout resume: exit %d: %s", res.ExitCode, res.Stderr)
		}
		rec.WaitFor(t, 30*time.Second, func(_ []framework.RSWrite, ev []framework.ScalingEvent) bool {
			for _, e := range ev {
				if e.ReplicaSet == s.old && e.To == 0 && e.From == 5 {
					return true
				}
			}
			return false
		})
		t.Logf("controller writes after the unguarded resume: %v", rec.Events())
	})
	t.Run("with the guard", func(t *testing.T) {
		if res := c.Plugin(t, "guard", "install"); res.ExitCode != 0 {
			t.Fatalf("guard install: %s", res.Stderr)
		}
		t.Cleanup(func() {
			if err := drive.UninstallGuard(context.Background(), c.Client); err != nil {
				t.Errorf("uninstall the guard: %v", err)
			}
		})
		s := newDriveSetup(t, 10, "25%", "25%")
		rec := s.c.RecordReplicaSets(t, s.ns)
		res := s.plugin(t, "drive", "deploy/web", "--image", "app=nginx:1.19", "--yes", "--until-step", "1")
		if res.ExitCode != 4 || strings.Contains(res.Stderr, "guard is not installed") {
			t.Fatalf("drive --until-step 1: exit %d\n%s", res.ExitCode, res.Stderr)
		}
		// The policy takes effect once the API server has loaded it: retry for a while.
		var last framework.Result
		deadline := time.Now().Add(20 * time.Second)
		for {
			last = s.c.Kubectl(t, "rollout", "resume", "deploy/web", "-n", s.ns)
			if last.ExitCode != 0 || time.Now().After(deadline) {
				break
			}
			// Accepted before the policy was active: re-pause and try again.
			s.c.Kubectl(t, "rollout", "pause", "deploy/web", "-n", s.ns)
			time.Sleep(500 * time.Millisecond)
		}
		if last.ExitCode == 0 || !strings.Contains(last.Stderr, "held by kubectl rollplan drive") {
			t.Fatalf("kubectl rollout resume with the guard: exit %d, want a refusal naming drive: %s", last.ExitCode, last.Stderr)
		}
		hb, err := drive.HandBack(t.Context(), s.c.Client, s.ns, "web", drive.HandBackOptions{Wait: true})
		if err != nil {
			t.Fatalf("hand back with the guard installed: %v", err)
		}
		if hb.Deployment.Spec.Paused || hb.Deployment.Spec.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType {
			t.Errorf("after the hand-back: paused %v, strategy %s", hb.Deployment.Spec.Paused, hb.Deployment.Spec.Strategy.Type)
		}
		// The controller now finishes natively from step 1's state, as a rolling update.
		s.c.WaitForRollout(t, s.ns, "web", time.Minute)
		t.Logf("controller writes after the hand-back: %v", rec.Events())
	})
}
