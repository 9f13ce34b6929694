package status

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/drive"
)

// point is one moment of a rollout of web (10 replicas, RollingUpdate 25%/25%: maxSurge 3,
// maxUnavailable 2) from nginx:1.18 (revision 1) to nginx:1.19 (revision 2).
type point struct {
	oldReplicas, oldAvailable int32
	newReplicas, newAvailable int32 // newReplicas < 0: the new ReplicaSet does not exist yet
	observed                  bool  // the controller observed the change (observedGeneration)
	reason                    string
}

// state builds the Deployment and its ReplicaSets at p. The old ReplicaSet was created at
// Time(0), the new one at Time(5); the Progressing condition was last updated at Time(6).
func (p point) state(strategy appsv1.DeploymentStrategy) (*appsv1.Deployment, []*appsv1.ReplicaSet) {
	old := testutil.Deployment("web").Replicas(10).Strategy(strategy).Build()
	b := testutil.Deployment("web").Replicas(10).Strategy(strategy).Image("nginx:1.19").Revision(2)
	rss := []*appsv1.ReplicaSet{testutil.ReplicaSetFor(old).Revision(1).Created(0).
		Replicas(p.oldReplicas).Status(p.oldReplicas, p.oldAvailable, p.oldAvailable).Build()}
	total, available, updated := p.oldReplicas, p.oldAvailable, int32(0)
	if p.newReplicas >= 0 {
		d := b.Build()
		rss = append(rss, testutil.ReplicaSetFor(d).Revision(2).Created(5).
			Replicas(p.newReplicas).Status(p.newReplicas, p.newAvailable, p.newAvailable).Build())
		total, available, updated = total+p.newReplicas, available+p.newAvailable, p.newReplicas
	}
	d := b.Status(total, updated, available, available).Build()
	if !p.observed {
		d.Generation, d.Status.ObservedGeneration = 2, 1
	}
	reason, status := p.reason, corev1.ConditionTrue
	if reason == "" {
		reason = "ReplicaSetUpdated"
	}
	if reason == TimedOutReason {
		status = corev1.ConditionFalse
	}
	d.Status.Conditions = []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing, Status: status, Reason: reason,
		LastUpdateTime: testutil.Time(6), LastTransitionTime: testutil.Time(0), Message: "msg"}}
	return d, rss
}

// view is what the tests compare of a Status.
type view struct {
	Phase       Phase
	Step, Steps int
	Next        string
	Waiting     string
}

func viewOf(s *Status) view {
	v := view{Phase: s.Phase, Step: s.Step, Steps: s.Steps, Waiting: s.Waiting}
	if s.Next != nil {
		v.Next = s.Next.String()
	}
	return v
}

// TestComputeAlongARollout checks the status at each point of a 25%/25% rollout of 10
// replicas. The plan from the start (batched) is:
//
//	1 create web-new with 3   (13 pods: maxSurge 3)
//	2 web-old 10 -> 8         (minAvailable 8: 10 available - 2)
//	3 web-new 3 -> 5          (8 + 5 = 13 pods)
//	4 web-old 8 -> 3          (once the 5 new pods are available: 13 available, keep 8)
//	5 web-new 5 -> 10         (3 + 10 = 13)
//	6 web-old 3 -> 0
func TestComputeAlongARollout(t *testing.T) {
	_, rss := point{newReplicas: 0}.state(testutil.RollingUpdate("25%", "25%"))
	newName, oldName := rss[1].Name, rss[0].Name
	tests := []struct {
		name string
		at   point
		want view
	}{{
		name: "the change is not observed yet: no new ReplicaSet",
		at:   point{oldReplicas: 10, oldAvailable: 10, newReplicas: -1},
		want: view{Phase: PhaseProgressing, Step: 0, Steps: 6, Waiting: "the controller to observe generation 2 (observed 1)"},
	}, {
		name: "first sync made, the surge is not used up: the controller writes again at once",
		at:   point{oldReplicas: 8, oldAvailable: 8, newReplicas: 3, observed: true},
		want: view{Phase: PhaseProgressing, Step: 2, Steps: 6, Next: newName + " 3 -> 5",
			Waiting: "its next sync, which writes " + newName + " 3 -> 5 without waiting for pods"},
	}, {
		name: "surge used up, no new pod available: waits before scaling old down",
		at:   point{oldReplicas: 8, oldAvailable: 8, newReplicas: 5, newAvailable: 0, observed: true},
		want: view{Phase: PhaseProgressing, Step: 3, Steps: 6, Next: oldName + " 8 -> 3",
			Waiting: "0 of 5 new pods available; waiting for availability before scaling old down (" + oldName + " 8 -> 3) (8 of 13 pods available; the controller keeps at least 8)"},
	}, {
		name: "pods available one by one: the controller scaled old down by less than the plan's step",
		at:   point{oldReplicas: 5, oldAvailable: 5, newReplicas: 8, newAvailable: 3, observed: true},
		want: view{Phase: PhaseProgressing, Step: 3, Steps: 6, Next: oldName + " 5 -> 0",
			Waiting: "3 of 8 new pods available; waiting for availability before scaling old down (" + oldName + " 5 -> 0) (8 of 13 pods available; the controller keeps at least 8)"},
	}, {
		name: "pods available one by one: with 4 of 7 new available the controller scales old down at once",
		at:   point{oldReplicas: 6, oldAvailable: 6, newReplicas: 7, newAvailable: 4, observed: true},
		want: view{Phase: PhaseProgressing, Step: 3, Steps: 6, Next: oldName + " 6 -> 4",
			Waiting: "its next sync, which writes " + oldName + " 6 -> 4 without waiting for pods"},
	}, {
		name: "new at replicas, old gone, 7 of 10 available",
		at:   point{oldReplicas: 0, oldAvailable: 0, newReplicas: 10, newAvailable: 7, observed: true},
		want: view{Phase: PhaseProgressing, Step: 6, Steps: 6, Waiting: "7 of 10 new pods available; waiting for the rest, then the rollout is complete"},
	}, {
		name: "complete",
		at:   point{oldReplicas: 0, oldAvailable: 0, newReplicas: 10, newAvailable: 10, observed: true, reason: NewRSAvailableReason},
		want: view{Phase: PhaseComplete, Step: 6, Steps: 6},
	}, {
		name: "the controller gave up",
		at:   point{oldReplicas: 8, oldAvailable: 8, newReplicas: 5, newAvailable: 0, observed: true, reason: TimedOutReason},
		want: view{Phase: PhaseFailed, Step: 3, Steps: 6,
			Waiting: "nothing: the controller gave up on the rollout (Progressing=False, ProgressDeadlineExceeded); it rolls out again after a change of the pod template, or kubectl rollout undo"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, rss := tt.at.state(testutil.RollingUpdate("25%", "25%"))
			s := Compute(d, rss, testutil.Time(7).Time, Options{})
			if s.PlanError != "" {
				t.Fatalf("plan: %s", s.PlanError)
			}
			if diff := cmp.Diff(tt.want, viewOf(s)); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSettled: the Deployment's status says complete while the ReplicaSets read still show
// the last step undone (a watch saw the Deployment's event first): not settled.
func TestSettled(t *testing.T) {
	d, rss := point{newReplicas: 10, newAvailable: 10, observed: true, reason: NewRSAvailableReason}.state(testutil.RollingUpdate("25%", "25%"))
	if s := Compute(d, rss, testutil.Time(7).Time, Options{}); !s.Settled {
		t.Error("consistent state not settled")
	}
	_, stale := point{oldReplicas: 3, oldAvailable: 3, newReplicas: 10, newAvailable: 8, observed: true}.state(testutil.RollingUpdate("25%", "25%"))
	if s := Compute(d, stale, testutil.Time(7).Time, Options{}); s.Settled || s.Phase != PhaseComplete {
		t.Errorf("stale ReplicaSets: settled %v, phase %s; want false, Complete", s.Settled, s.Phase)
	}
}

// TestComputeHeldByDrive: a Deployment drive holds (paused, Recreate, the drive annotation)
// shows drive's step of its own plan, its start and why it is held, and runs no deadline.
func TestComputeHeldByDrive(t *testing.T) {
	d, rss := point{oldReplicas: 5, oldAvailable: 5, newReplicas: 3, newAvailable: 3, observed: true}.state(testutil.RollingUpdate("25%", "25%"))
	started := testutil.Time(5).Time
	held := testutil.Time(6).Time
	st := &drive.State{Version: drive.StateVersion, PlanID: "p1", Phase: drive.PhaseForward, OriginalStrategy: d.Spec.Strategy,
		NewReplicaSet: rss[1].Name, PreviousReplicaSet: rss[0].Name, Revision: 2, Replicas: 10, MaxSurge: 3, MaxUnavailable: 2,
		Step: 1, Steps: 3, StartedAt: started, UpdatedAt: held, HeldSince: &held, HeldReason: "--until-step 1 reached"}
	val, err := st.Encode()
	if err != nil {
		t.Fatal(err)
	}
	d.Annotations[drive.Annotation] = val
	d.Spec.Paused = true
	d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	s := Compute(d, rss, testutil.Time(7).Time, Options{})
	if s.Step != 1 || s.Steps != 3 || !s.StartedAt.Equal(started) || s.Elapsed != 2*time.Minute {
		t.Errorf("step %d of %d, started %v, elapsed %v; want drive's 1 of 3, %v, 2m0s", s.Step, s.Steps, s.StartedAt, s.Elapsed, started)
	}
	if !strings.HasPrefix(s.HeldBy, "held by kubectl rollplan drive at step 1 of 3") ||
		!strings.HasSuffix(s.Waiting, ": --until-step 1 reached") || !s.DeadlineAt.IsZero() {
		t.Errorf("held %q, waiting %q, deadline %v", s.HeldBy, s.Waiting, s.DeadlineAt)
	}
}
