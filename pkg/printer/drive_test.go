package printer

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/deployutil"
	"github.com/rollplan/kubectl-rollplan/pkg/drive"
)

var driveNow = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// rolledOut is web: 10 replicas, 25%/25%, revision 1 rolled out on its one ReplicaSet.
func rolledOut() (*appsv1.Deployment, *appsv1.ReplicaSet) {
	d := testutil.Deployment("web").Replicas(10).Revision(1).Build()
	return d, testutil.ReplicaSetFor(d).Created(1).Build()
}

func withImage(d *appsv1.Deployment, image string) *appsv1.Deployment {
	out := d.DeepCopy()
	out.Spec.Template.Spec.Containers[0].Image = image
	return out
}

// heldState is web held by drive at step 1 of 3 (new 3, old 5) in phase, the lease of
// holder valid until leaseUntil (no holder: none running), as drive's own tests build it.
func heldState(t *testing.T, phase drive.Phase, holder string, leaseUntil time.Time) *cluster.State {
	t.Helper()
	d, old := rolledOut()
	old.Spec.Replicas = ptr.To(int32(5))
	target := withImage(d, "nginx:1.19")
	newRS := testutil.ReplicaSetFor(target).Created(2).Replicas(3).Revision(2).Build()
	s := &drive.State{Version: drive.StateVersion, PlanID: "p1", Phase: phase, OriginalStrategy: d.Spec.Strategy,
		TargetHash: newRS.Labels[appsv1.DefaultDeploymentUniqueLabelKey], NewReplicaSet: newRS.Name, PreviousReplicaSet: old.Name,
		Replicas: 10, MaxSurge: 3, MaxUnavailable: 2, Step: 1, Steps: 3, Generation: 2, Holder: holder,
		LastHolder: "bob@host pid 2/cd", StartedAt: driveNow.Add(-time.Minute), UpdatedAt: driveNow}
	if holder != "" {
		s.LeaseExpires = &leaseUntil
	} else {
		held := driveNow.Add(-30 * time.Second)
		s.HeldSince, s.HeldReason = &held, "--until-step 1 reached"
	}
	val, err := s.Encode()
	if err != nil {
		t.Fatal(err)
	}
	target.Generation = 2
	target.Spec.Paused = true
	target.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	target.Annotations = map[string]string{deployutil.RevisionAnnotation: "2", drive.Annotation: val}
	return &cluster.State{Deployment: target, ReplicaSets: []*appsv1.ReplicaSet{old, newRS}}
}

func snapshot(t *testing.T, st *cluster.State) *drive.Snapshot {
	t.Helper()
	snap, err := drive.NewSnapshot(st)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func TestPrintDriveStatus(t *testing.T) {
	notHeld := func(t *testing.T) *cluster.State {
		d, old := rolledOut()
		return &cluster.State{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{old}}
	}
	for _, tc := range []struct {
		name  string
		state func(t *testing.T) *cluster.State
		want  []string
	}{
		{"driven", func(t *testing.T) *cluster.State {
			return heldState(t, drive.PhaseForward, "alice@host pid 1/ab", driveNow.Add(20*time.Second))
		}, []string{"Held:", "alice@host pid 1/ab (lease valid until 2026-01-02T03:04:25Z, 20s left)", "Step:", "1 of 3 (2 left", "Next step:", "REPLICASET"}},
		{"lease-expired", func(t *testing.T) *cluster.State {
			return heldState(t, drive.PhaseAbort, "alice@host pid 1/ab", driveNow.Add(-5*time.Second))
		}, []string{"walking back (abort)", "lease expired at 2026-01-02T03:04:00Z (5s ago); `drive --force` takes over"}},
		{"held", func(t *testing.T) *cluster.State { return heldState(t, drive.PhaseForward, "", time.Time{}) },
			[]string{"none running (last: bob@host pid 2/cd)", "Held since:", "--until-step 1 reached"}},
		{"not-held", notHeld, []string{"Held:        no: the Deployment controller runs its rollouts (strategy RollingUpdate maxSurge 25% maxUnavailable 25%, paused false)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out strings.Builder
			if err := PrintDriveStatus(&out, drive.Status(snapshot(t, tc.state(t)), driveNow), driveNow); err != nil {
				t.Fatal(err)
			}
			for _, want := range tc.want {
				if !strings.Contains(out.String(), want) {
					t.Errorf("status lacks %q:\n%s", want, out.String())
				}
			}
			testutil.Golden(t, "drive-status-"+tc.name, []byte(out.String()))
		})
	}
}

// takeover plans web's change to nginx:1.19 under maxSurge/maxUnavailable.
func takeover(t *testing.T, surge, unavailable string) *drive.Takeover {
	t.Helper()
	d, old := rolledOut()
	d.Spec.Strategy = testutil.RollingUpdate(surge, unavailable)
	tk, err := drive.PlanTakeover(&cluster.State{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{old}}, withImage(d, "nginx:1.19"), false)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

func TestPrintDrivePreparedAndComparison(t *testing.T) {
	for _, tc := range []struct{ surge, unavailable string }{{"25%", "25%"}, {"0", "25%"}} {
		name := "drive-plan-" + strings.ReplaceAll(tc.surge+"-"+tc.unavailable, "%", "pct")
		t.Run(name, func(t *testing.T) {
			tk := takeover(t, tc.surge, tc.unavailable)
			var out strings.Builder
			p := &drive.Prepared{Takeover: tk, Bounds: tk.Bounds, Steps: tk.Steps}
			if err := PrintDrivePrepared(&out, "default", "web", p); err != nil {
				t.Fatal(err)
			}
			c, err := drive.Compare(tk)
			if err != nil {
				t.Fatal(err)
			}
			out.WriteString("\n")
			if err := PrintComparison(&out, c); err != nil {
				t.Fatal(err)
			}
			testutil.Golden(t, name, []byte(out.String()))
		})
	}
}

func TestPrintHeldPrepared(t *testing.T) {
	snap := snapshot(t, heldState(t, drive.PhaseForward, "", time.Time{}))
	b := snap.State.Bounds()
	steps, err := drive.PlanSteps(b, snap.Start())
	if err != nil {
		t.Fatal(err)
	}
	p := &drive.Prepared{Snapshot: snap, Bounds: b, Steps: steps, Done: snap.State.Step}
	var out strings.Builder
	if err := PrintDrivePrepared(&out, "default", "web", p); err != nil {
		t.Fatal(err)
	}
	out.WriteString("--- abort\n")
	if err := PrintAbortPrepared(&out, "default", "web", p); err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, "drive-held-prepared", []byte(out.String()))
}

func TestStepPrompt(t *testing.T) {
	st := drive.Step{New: drive.Scale{Name: "web-new", From: 3, To: 8}, WaitAvailable: 8,
		Old: []drive.Scale{{Name: "web-old", From: 5, To: 1}}, Pods: 13, AvailableAfter: 9}
	for _, tc := range []struct {
		phase drive.Phase
		want  string
	}{
		{drive.PhaseForward, "step 2/3: web-new 3 -> 8, wait for 8 available, web-old 5 -> 1 (13 pods at most, 9 available after)\n  [c]ontinue, [h]old, [a]bort? "},
		{drive.PhaseAbort, "abort step 2/3: web-new 3 -> 8, wait for 8 available, web-old 5 -> 1 (13 pods at most, 9 available after)\n  [c]ontinue, [h]old, [a]bort? "},
	} {
		if got := StepPrompt(drive.StepInfo{Number: 2, Of: 3, Step: st, Phase: tc.phase}); got != tc.want {
			t.Errorf("%s: prompt %q, want %q", tc.phase, got, tc.want)
		}
	}
	st = drive.Step{Create: true, New: drive.Scale{Name: "web-new", To: 1}, WaitAvailable: 1, Pods: 11, AvailableAfter: 10, ExtraPod: true}
	if got, want := DescribeStep(drive.APIStep(st)), "create web-new with 1, wait for 1 available (11 pods at most, 10 available after, one extra pod: maxSurge is 0)"; got != want {
		t.Errorf("DescribeStep = %q, want %q", got, want)
	}
}

func TestPrintDriveResult(t *testing.T) {
	for _, tc := range []struct {
		res  drive.Result
		want string
	}{
		{drive.Result{Outcome: drive.OutcomeComplete, Revision: 2, StepsRun: 3, Duration: 1234 * time.Millisecond}, "deployment default/web rolled out: revision 2, 3 steps in 1.2s, handed back to the controller\n"},
		{drive.Result{Outcome: drive.OutcomeAborted, Revision: 1, StepsRun: 1, Duration: 600 * time.Millisecond}, "deployment default/web walked back: revision 1, 1 step in 600ms, handed back to the controller\n"},
		{drive.Result{Outcome: drive.OutcomeHeld, Step: 1, Steps: 3, Reason: "--until-step 1 reached"}, "deployment default/web held at step 1 of 3: --until-step 1 reached\n"},
		{drive.Result{Outcome: drive.OutcomeNotStarted}, ""},
	} {
		var out strings.Builder
		if err := PrintDriveResult(&out, "default", "web", &tc.res); err != nil {
			t.Fatal(err)
		}
		if out.String() != tc.want {
			t.Errorf("%s: %q, want %q", tc.res.Outcome, out.String(), tc.want)
		}
	}
}
