package status

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubectl/pkg/polymorphichelpers"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// TestDeadline: progressDeadlineSeconds 60, last progress at Time(6) (minute 6); the warning
// comes once half of it (30 s) passed without progress, by default.
func TestDeadline(t *testing.T) {
	last := testutil.Time(6).Time
	stuck := point{oldReplicas: 8, oldAvailable: 8, newReplicas: 5, observed: true}
	tests := []struct {
		name      string
		at        point
		now       time.Time
		warnAfter float64
		paused    bool
		want      string
		deadline  time.Time
	}{
		{name: "20s without progress: no warning", at: stuck, now: last.Add(20 * time.Second), deadline: last.Add(time.Minute)},
		{name: "30s without progress: warned", at: stuck, now: last.Add(30 * time.Second), deadline: last.Add(time.Minute),
			want: "no progress for 30s of progressDeadlineSeconds 60: the controller reports ProgressDeadlineExceeded in 30s unless more pods become available"},
		{name: "warn after 0.25: warned at 20s", at: stuck, now: last.Add(20 * time.Second), warnAfter: 0.25, deadline: last.Add(time.Minute),
			want: "no progress for 20s of progressDeadlineSeconds 60: the controller reports ProgressDeadlineExceeded in 40s unless more pods become available"},
		{name: "deadline passed, not reported yet", at: stuck, now: last.Add(61 * time.Second), deadline: last.Add(time.Minute),
			want: "no progress for 1m1s: progressDeadlineSeconds (60) has passed; the controller reports ProgressDeadlineExceeded at its next sync"},
		{name: "paused: no deadline runs", at: stuck, now: last.Add(50 * time.Second), paused: true},
		{name: "complete: no deadline", at: point{newReplicas: 10, newAvailable: 10, observed: true, reason: NewRSAvailableReason}, now: last.Add(time.Hour)},
		{name: "reported", at: point{oldReplicas: 8, oldAvailable: 8, newReplicas: 5, observed: true, reason: TimedOutReason}, now: last.Add(time.Hour),
			want: "the controller reported ProgressDeadlineExceeded at 2024-01-01T00:06:00Z: msg"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, rss := tt.at.state(testutil.RollingUpdate("25%", "25%"))
			d.Spec.ProgressDeadlineSeconds = new(int32)
			*d.Spec.ProgressDeadlineSeconds = 60
			d.Spec.Paused = tt.paused
			s := Compute(d, rss, tt.now, Options{WarnAfter: tt.warnAfter})
			if s.Warning != tt.want {
				t.Errorf("warning:\n got %q\nwant %q", s.Warning, tt.want)
			}
			if !s.DeadlineAt.Equal(tt.deadline) {
				t.Errorf("deadline at %v, want %v", s.DeadlineAt, tt.deadline)
			}
			if !s.LastProgressAt.Equal(last) {
				t.Errorf("last progress at %v, want %v", s.LastProgressAt, last)
			}
		})
	}
}

// TestElapsed: the rollout started when the controller created the new ReplicaSet
// (Time(5)); once complete, it took until the Progressing condition's NewReplicaSetAvailable
// (Time(6)).
func TestElapsed(t *testing.T) {
	d, rss := point{oldReplicas: 8, oldAvailable: 8, newReplicas: 5, observed: true}.state(testutil.RollingUpdate("25%", "25%"))
	s := Compute(d, rss, testutil.Time(7).Time.Add(30*time.Second), Options{})
	if want := testutil.Time(5).Time; !s.StartedAt.Equal(want) || s.Elapsed != 150*time.Second {
		t.Errorf("in flight: started %v, elapsed %v; want %v, 2m30s", s.StartedAt, s.Elapsed, want)
	}
	d, rss = point{newReplicas: 10, newAvailable: 10, observed: true, reason: NewRSAvailableReason}.state(testutil.RollingUpdate("25%", "25%"))
	s = Compute(d, rss, testutil.Time(60).Time, Options{})
	if s.Elapsed != time.Minute || !s.CompletedAt.Equal(testutil.Time(6).Time) {
		t.Errorf("complete: elapsed %v, completed %v; want 1m0s, %v", s.Elapsed, s.CompletedAt, testutil.Time(6).Time)
	}
	// A reused ReplicaSet (a rollback): its creation is not the start; the controller's
	// FoundNewReplicaSet condition is, until the first progress.
	d, rss = point{oldReplicas: 10, oldAvailable: 10, newReplicas: 0, observed: true, reason: FoundNewRSReason}.state(testutil.RollingUpdate("25%", "25%"))
	rss[1].CreationTimestamp = testutil.Time(-5)
	s = Compute(d, rss, testutil.Time(7).Time, Options{})
	if want := testutil.Time(6).Time; !s.StartedAt.Equal(want) || s.Elapsed != time.Minute {
		t.Errorf("reused: started %v, elapsed %v; want %v, 1m0s", s.StartedAt, s.Elapsed, want)
	}
}

// TestComputeRecreate: Recreate waits for every old pod to terminate before it scales new up.
func TestComputeRecreate(t *testing.T) {
	d, rss := point{oldReplicas: 0, oldAvailable: 0, newReplicas: 0, observed: true}.state(testutil.Recreate())
	rss[0].Status.Replicas, rss[0].Status.ReadyReplicas = 4, 4
	d.Status.Replicas = 4
	s := Compute(d, rss, testutil.Time(7).Time, Options{})
	want := view{Phase: PhaseProgressing, Step: 1, Steps: 2, Next: rss[1].Name + " 0 -> 10",
		Waiting: "4 old pods to terminate before scaling new up (" + rss[1].Name + " 0 -> 10)"}
	if diff := cmp.Diff(want, viewOf(s)); diff != "" {
		t.Errorf("status (-want +got):\n%s", diff)
	}
}

func TestSummarize(t *testing.T) {
	st := func(p Phase) *Status { return &Status{Phase: p} }
	tests := []struct {
		name     string
		sts      []*Status
		timedOut bool
		want     Result
		allDone  bool
	}{
		{"all complete", []*Status{st(PhaseComplete), st(PhaseComplete)}, false, ResultComplete, true},
		{"complete even when the timeout fired with the last event", []*Status{st(PhaseComplete)}, true, ResultComplete, true},
		{"one failed, one in progress: failed, not done", []*Status{st(PhaseFailed), st(PhaseProgressing)}, false, ResultFailed, false},
		{"failed beats a timeout", []*Status{st(PhaseFailed), st(PhaseProgressing)}, true, ResultFailed, false},
		{"in progress, not waited for", []*Status{st(PhaseComplete), st(PhaseProgressing)}, false, ResultWaiting, false},
		{"in progress at the timeout", []*Status{st(PhaseProgressing)}, true, ResultTimedOut, false},
		{"failed and complete: done", []*Status{st(PhaseFailed), st(PhaseComplete)}, false, ResultFailed, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Summarize(tt.sts, tt.timedOut); got != tt.want {
				t.Errorf("Summarize = %v, want %v", got, tt.want)
			}
			if got := AllDone(tt.sts); got != tt.allDone {
				t.Errorf("AllDone = %v, want %v", got, tt.allDone)
			}
		})
	}
}

// TestVerdictMirrorsKubectl compares Verdict with kubectl's own DeploymentStatusViewer
// (k8s.io/kubectl v0.36.3) on each of its branches: same message, same done, and kubectl's
// error exactly when PhaseFailed.
func TestVerdictMirrorsKubectl(t *testing.T) {
	timedOut := []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing, Reason: TimedOutReason}}
	tests := []struct {
		name string
		d    *appsv1.Deployment
		want Phase
	}{
		{"old pending termination", testutil.Deployment("web").Replicas(3).Status(4, 3, 4, 4).Build(), PhaseProgressing},
		{"not all updated", testutil.Deployment("web").Replicas(3).Status(3, 2, 3, 3).Build(), PhaseProgressing},
		{"not all available", testutil.Deployment("web").Replicas(3).Status(3, 3, 3, 1).Build(), PhaseProgressing},
		{"complete", testutil.Deployment("web").Replicas(3).Status(3, 3, 3, 3).Build(), PhaseComplete},
		{"deadline exceeded", func() *appsv1.Deployment {
			d := testutil.Deployment("web").Replicas(3).Status(3, 1, 3, 3).Build()
			d.Status.Conditions = timedOut
			return d
		}(), PhaseFailed},
		{"not observed (the deadline condition is stale)", func() *appsv1.Deployment {
			d := testutil.Deployment("web").Replicas(3).Status(3, 1, 3, 3).Build()
			d.Status.Conditions, d.Generation = timedOut, 5
			return d
		}(), PhaseProgressing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(tt.d)
			if err != nil {
				t.Fatal(err)
			}
			kmsg, kdone, kerr := (&polymorphichelpers.DeploymentStatusViewer{}).Status(&unstructured.Unstructured{Object: obj}, 0)
			phase, msg := Verdict(tt.d)
			if phase != tt.want {
				t.Errorf("phase %s, want %s", phase, tt.want)
			}
			if kerr != nil {
				if phase != PhaseFailed || msg != kerr.Error() {
					t.Errorf("kubectl fails with %q; Verdict gives %s %q", kerr, phase, msg)
				}
				return
			}
			if msg+"\n" != kmsg || (phase == PhaseComplete) != kdone {
				t.Errorf("kubectl says %q (done %v); Verdict gives %s %q", kmsg, kdone, phase, msg)
			}
		})
	}
}

// TestETA: the rest of the rollout planned under the time model from the live state (new 5,
// none available; old 8): the 5 new pods become Ready 2 s from now, then old 8 -> 3 and new
// 5 -> 10, whose pods take 2 s more, then old 3 -> 0: 4 s. With progressDeadlineSeconds 1
// the model expects the deadline to pass first, and says so.
func TestETA(t *testing.T) {
	rest := func(in planner.Input) (*planner.Plan, error) {
		in.Readiness, in.Timing = planner.ReadinessTimed, &planner.Timing{ReadyAfter: []time.Duration{2 * time.Second}}
		return planner.Simulate(in)
	}
	d, rss := point{oldReplicas: 8, oldAvailable: 8, newReplicas: 5, observed: true}.state(testutil.RollingUpdate("25%", "25%"))
	s := Compute(d, rss, testutil.Time(6).Time, Options{Rest: rest})
	if !s.HasETA || s.ETA != 4*time.Second || s.Warning != "" {
		t.Errorf("ETA %v (known %v), warning %q; want 4s, no warning", s.ETA, s.HasETA, s.Warning)
	}
	d.Spec.ProgressDeadlineSeconds = new(int32)
	*d.Spec.ProgressDeadlineSeconds = 1
	s = Compute(d, rss, testutil.Time(6).Time, Options{Rest: rest})
	if !strings.HasPrefix(s.Warning, "the time model expects ProgressDeadlineExceeded in ") {
		t.Errorf("warning %q, want the time model's deadline", s.Warning)
	}
	done, drss := point{newReplicas: 10, newAvailable: 10, observed: true, reason: NewRSAvailableReason}.state(testutil.RollingUpdate("25%", "25%"))
	if s := Compute(done, drss, testutil.Time(6).Time, Options{Rest: rest}); s.HasETA {
		t.Errorf("complete rollout has an ETA %v", s.ETA)
	}
}
