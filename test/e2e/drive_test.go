//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/drive"
)

// TestDriveFullRollout drives a 10-replica Deployment from nginx:1.18 to nginx:1.19 with
// the deployment-controller running, for three strategies. While drive holds the
// Deployment the controller makes no ReplicaSet replica write (no ScalingReplicaSet event,
// and every ReplicaSet write is exactly the drive's plan); a watch of every pod shows the
// pods never above replicas+maxSurge (+1 when maxSurge is 0) and availability never below
// replicas-maxUnavailable; after the hand-back the rollout is complete at revision 2.
func TestDriveFullRollout(t *testing.T) {
	for _, tc := range []struct{ name, surge, unavailable string }{
		{"25%-25%", "25%", "25%"},
		{"maxSurge 0", "0", "25%"},
		{"maxUnavailable 0", "25%", "0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newDriveSetup(t, 10, tc.surge, tc.unavailable)
			b := s.bounds
			maxPods := int(b.MaxPods())
			if b.MaxSurge == 0 {
				maxPods++ // the one extra pod
			}
			mon := watchPods(t, s.c, s.ns, maxPods, int(b.MinAvailable()))
			rec := s.c.RecordReplicaSets(t, s.ns)
			began := time.Now()
			res := s.plugin(t, "drive", "deploy/web", "--image", "app=nginx:1.19", "--yes")
			took := time.Since(began)
			if res.ExitCode != 0 {
				t.Fatalf("drive: exit %d\nstdout:\n%s\nstderr:\n%s", res.ExitCode, res.Stdout, res.Stderr)
			}
			t.Logf("drive took %s:\n%s%s", took.Round(time.Millisecond), res.Stdout, res.Stderr)
			writes := rec.WaitQuiet(t, 2*time.Second, 30*time.Second)
			if diff := cmp.Diff(drivePlanWrites(t, b), s.describe(writes)); diff != "" {
				t.Errorf("ReplicaSet writes differ from the drive's plan (-plan +seen):\n%s", diff)
			}
			if ev := rec.Events(); len(ev) != 0 {
				t.Errorf("the deployment-controller scaled ReplicaSets during or after the drive: %v", ev)
			}
			mon.assertBounds(t)
			s.assertHandedBack(t, 2, "nginx:1.19", 10)
			reasons := s.driveEvents(t)
			if got, want := countOf(reasons, drive.ReasonScaled)+countOf(reasons, drive.ReasonCreated), len(writes); got != want {
				t.Errorf("%d Rollplan Created/Scaled events for %d ReplicaSet writes: %v", got, want, reasons)
			}
			for _, r := range []string{drive.ReasonTakeover, drive.ReasonHandBack} {
				if countOf(reasons, r) != 1 {
					t.Errorf("%d %s events, want 1: %v", countOf(reasons, r), r, reasons)
				}
			}
		})
	}
}

// TestDriveCrashResume kills the driver process (SIGKILL) at random points of a drive, 12
// times, runs drive again each time (with --force, or after the lease expired), and checks
// that every run reaches the same end: the writes of the plan exactly, no controller
// scaling, the bounds held throughout, complete at revision 2.
func TestDriveCrashResume(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("ROLLPLAN_E2E_SEED"); v != "" {
		seed, _ = strconv.ParseUint(v, 10, 64)
	}
	t.Logf("seed %d (ROLLPLAN_E2E_SEED reproduces it)", seed)
	rng := rand.New(rand.NewPCG(seed, 4))
	strategies := [][2]string{{"25%", "25%"}, {"0", "25%"}, {"25%", "0"}}
	for run := range 12 {
		st := strategies[run%len(strategies)]
		t.Run(fmt.Sprintf("run %d %s-%s", run, st[0], st[1]), func(t *testing.T) {
			s := newDriveSetup(t, 10, st[0], st[1])
			b := s.bounds
			maxPods := int(b.MaxPods())
			if b.MaxSurge == 0 {
				maxPods++
			}
			want := drivePlanWrites(t, b)
			mon := watchPods(t, s.c, s.ns, maxPods, int(b.MinAvailable()))
			rec := s.c.RecordReplicaSets(t, s.ns)
			// Kill after k ReplicaSet writes (k = -1: after a random delay, maybe before the
			// takeover; k = len(want): after the last write, during the hand-back), plus up
			// to 40 ms.
			k := rng.IntN(len(want)+2) - 1
			jitter := time.Duration(rng.IntN(40)) * time.Millisecond
			args := []string{"drive", "deploy/web", "--image", "app=nginx:1.19", "--yes", "--lease-duration", "4s"}
			first := s.startDrive(t, nil, args...)
			deadline := time.Now().Add(60 * time.Second)
			if k < 0 {
				time.Sleep(time.Duration(rng.IntN(400))*time.Millisecond + jitter)
			} else {
				for len(rec.Writes()) < k && !first.Exited() && time.Now().Before(deadline) {
					time.Sleep(2 * time.Millisecond)
				}
				time.Sleep(jitter)
			}
			killedAt := len(rec.Writes())
			finished := first.Exited()
			first.Stop(t, syscall.SIGKILL, time.Minute)
			t.Logf("kill point k=%d+%s: killed after %d writes (exited on its own first: %v)", k, jitter, killedAt, finished)

			second := args
			if run%2 == 0 {
				second = append(second, "--force")
			} else {
				time.Sleep(4500 * time.Millisecond) // the dead driver's lease expires
			}
			res := s.plugin(t, second...)
			if res.ExitCode != 0 {
				t.Fatalf("drive again: exit %d\nstdout:\n%s\nstderr:\n%s\nfirst run stderr:\n%s", res.ExitCode, res.Stdout, res.Stderr, first.Stderr.String())
			}
			writes := rec.WaitQuiet(t, 2*time.Second, 30*time.Second)
			if diff := cmp.Diff(want, s.describe(writes)); diff != "" {
				t.Errorf("writes across the kill differ from the plan (-plan +seen):\n%s\nfirst run stderr:\n%s\nsecond run stderr:\n%s", diff, first.Stderr.String(), res.Stderr)
			}
			if ev := rec.Events(); len(ev) != 0 {
				t.Errorf("the deployment-controller scaled ReplicaSets: %v", ev)
			}
			mon.assertBounds(t)
			s.assertHandedBack(t, 2, "nginx:1.19", 10)
		})
	}
}

// TestDriveHoldAndAbort drives one step (--until-step 1: exit code 4, held), checks the
// status report, then aborts: the previous ReplicaSet comes back up first, the new one goes
// down, the previous template is restored and the rollout is complete at revision 3 (the
// previous ReplicaSet renumbered, as after kubectl rollout undo), within the bounds.
func TestDriveHoldAndAbort(t *testing.T) {
	s := newDriveSetup(t, 10, "25%", "25%")
	b := s.bounds
	mon := watchPods(t, s.c, s.ns, int(b.MaxPods()), int(b.MinAvailable()))
	rec := s.c.RecordReplicaSets(t, s.ns)
	res := s.plugin(t, "drive", "deploy/web", "--image", "app=nginx:1.19", "--yes", "--until-step", "1")
	if res.ExitCode != 4 {
		t.Fatalf("drive --until-step 1: exit %d, want 4 (held)\nstdout:\n%s\nstderr:\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	status := s.plugin(t, "drive", "status", "deploy/web")
	if status.ExitCode != 0 {
		t.Fatalf("drive status: exit %d: %s", status.ExitCode, status.Stderr)
	}
	for _, want := range []string{"Held:        yes", "Step:        1 of 3", "none running", "--until-step 1 reached", "web-"} {
		if !strings.Contains(status.Stdout, want) {
			t.Errorf("drive status lacks %q:\n%s", want, status.Stdout)
		}
	}
	var report v1alpha1.DriveStatus
	js := s.plugin(t, "drive", "status", "deploy/web", "-o", "json")
	if err := json.Unmarshal([]byte(js.Stdout), &report); err != nil {
		t.Fatalf("drive status -o json: %v\n%s", err, js.Stdout)
	}
	if !report.Held || report.Driving || report.State.Step != 1 || len(report.ReplicaSets) != 2 {
		t.Errorf("status report: held %v driving %v step %d, %d replicasets", report.Held, report.Driving, report.State.Step, len(report.ReplicaSets))
	}
	res = s.plugin(t, "abort", "deploy/web", "--yes")
	if res.ExitCode != 0 {
		t.Fatalf("abort: exit %d\nstdout:\n%s\nstderr:\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	t.Logf("abort:\n%s%s", res.Stdout, res.Stderr)
	writes := rec.WaitQuiet(t, 2*time.Second, 30*time.Second)
	// Forward step 1 (new 0->3, old 10->5), then the walk back, planned the same way with
	// the roles swapped: old up first, new down.
	back, err := drive.PlanSteps(b, drive.Start{New: drive.Counts{Name: "old", Replicas: 5, Available: 5}, NewExists: true,
		Old: []drive.Counts{{Name: "new", Replicas: 3, Available: 3}}})
	if err != nil {
		t.Fatal(err)
	}
	wantWrites := []string{"create new 0->3", "scale old 10->5"}
	for _, st := range back {
		if st.New.From != st.New.To {
			wantWrites = append(wantWrites, fmt.Sprintf("scale old %d->%d", st.New.From, st.New.To))
		}
		for _, o := range st.Old {
			wantWrites = append(wantWrites, fmt.Sprintf("scale new %d->%d", o.From, o.To))
		}
	}
	if diff := cmp.Diff(wantWrites, s.describe(writes)); diff != "" {
		t.Errorf("writes (-want +got):\n%s", diff)
	}
	if ev := rec.Events(); len(ev) != 0 {
		t.Errorf("the deployment-controller scaled ReplicaSets: %v", ev)
	}
	mon.assertBounds(t)
	s.assertHandedBack(t, 3, "nginx:1.18", 10)
}

// TestDriveProgressTimeout holds a drive whose new pods never become ready: after
// --progress-timeout it exits with code 4, names the pods, and the Deployment stays held
// with the reason; resuming it later (drive again, pods released) completes it. The lease
// (3s) is renewed every second, six times during the wait: a renewal's watch event once
// re-planned the step and restarted its wait, so a progress timeout longer than a third of
// the lease never came (--progress-timeout 65s: still waiting after 10 minutes).
func TestDriveProgressTimeout(t *testing.T) {
	s := newDriveSetup(t, 4, "1", "0")
	mon := watchPods(t, s.c, s.ns, int(s.bounds.MaxPods()), int(s.bounds.MinAvailable()))
	drv := s.startDrive(t, nil, "drive", "deploy/web", "-f", s.manifest(t, "nginx:1.19", true), "--yes", "--progress-timeout", "6s", "--lease-duration", "3s")
	if code := drv.Wait(t, time.Minute); code != 4 {
		t.Fatalf("drive: exit %d, want 4\nstdout:\n%s\nstderr:\n%s", code, drv.Stdout.String(), drv.Stderr.String())
	}
	for _, want := range []string{"0 of 1 pods available after 6s", "Pending"} {
		if !strings.Contains(drv.Stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, drv.Stderr.String())
		}
	}
	d := s.waitState(t, 10*time.Second, func(st *drive.State, _ *appsv1.Deployment) bool { return st.Holder == "" })
	st, _ := drive.ReadState(d)
	if !strings.Contains(st.HeldReason, "timed out") {
		t.Errorf("held reason %q, want a timeout", st.HeldReason)
	}
	stop := s.c.AutoRelease(t, s.ns, "")
	res := s.plugin(t, "drive", "deploy/web", "--yes")
	stop()
	if res.ExitCode != 0 {
		t.Fatalf("drive again: exit %d\nstderr:\n%s", res.ExitCode, res.Stderr)
	}
	mon.assertBounds(t)
	s.assertHandedBack(t, 2, "nginx:1.19", 4)
}
