package estimate_test

import (
	"errors"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/estimate"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// rolloutOf is the start of a rollout of d (10 replicas) from nginx:1.18: the old
// ReplicaSet alone at 10, every pod available.
func rolloutOf(d *appsv1.Deployment, took time.Duration) estimate.Rollout {
	prev := testutil.Deployment("web").Replicas(10).Strategy(d.Spec.Strategy).Image("nginx:1.18").Build()
	old := testutil.ReplicaSetFor(prev).Revision(1).Created(0).Replicas(10).Status(10, 10, 10).Build()
	return estimate.Rollout{Start: planner.Input{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{old}}, ReplicaSet: "web-new", Took: took}
}

func TestFitSyncLatency(t *testing.T) {
	twoSeconds, err := estimate.ParseReadyAfter("2s")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		strategy appsv1.DeploymentStrategy
		took     time.Duration
		want     time.Duration
		modelled time.Duration
		waves    float64
	}{
		// 25%/25%, 2 s readiness: two waves of pods (0 and 2 s), 4 s without latency. A
		// rollout that took 5 s has 0.5 s per wave.
		{"25%/25% took 5s: two waves, 500ms each", testutil.RollingUpdate("25%", "25%"), 5 * time.Second, 500 * time.Millisecond, 4 * time.Second, 2},
		// maxSurge 0 (maxUnavailable 2): five waves of 2 pods, 10 s; 15 s: 1 s per wave.
		{"maxSurge 0 took 15s: five waves, 1s each", testutil.RollingUpdate("0", "25%"), 15 * time.Second, time.Second, 10 * time.Second, 5},
		// Faster than the model: no latency (the pods were faster than their estimate).
		{"took 3s, the model gives 4s: 0", testutil.RollingUpdate("25%", "25%"), 3 * time.Second, 0, 4 * time.Second, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := testutil.Deployment("web").Replicas(10).Strategy(tc.strategy).Image("nginx:1.19").Build()
			l, err := estimate.FitSyncLatency(rolloutOf(d, tc.took), twoSeconds)
			if err != nil {
				t.Fatal(err)
			}
			if l.Source != estimate.LatencyRollout || l.PerWrite != tc.want || l.Modelled != tc.modelled || l.Took != tc.took || l.ReplicaSet != "web-new" || l.Waves != tc.waves {
				t.Errorf("got %+v, want %s per write, modelled %s, %.1f waves", l, tc.want, tc.modelled, tc.waves)
			}
			// The fitted latency replays the rollout in the time it took (to the millisecond).
			if tc.want > 0 {
				in := rolloutOf(d, tc.took).Start
				in.Readiness = planner.ReadinessTimed
				in.Timing = &planner.Timing{ReadyAfter: twoSeconds.ReadyAfter, SyncLatency: l.PerWrite}
				p, err := planner.Simulate(in)
				if err != nil || p.Duration != tc.took {
					t.Errorf("replay with %s: %v (err %v), want %s", l.PerWrite, p.Duration, err, tc.took)
				}
			}
		})
	}
	t.Run("a replay that does not complete: ErrNoFit", func(t *testing.T) {
		d := testutil.Deployment("web").Replicas(10).Image("nginx:1.19").Paused(true).Build()
		if _, err := estimate.FitSyncLatency(rolloutOf(d, 5*time.Second), twoSeconds); !errors.Is(err, estimate.ErrNoFit) {
			t.Errorf("paused start: err %v, want ErrNoFit", err)
		}
	})
}

func TestParseSyncLatency(t *testing.T) {
	l, err := estimate.ParseSyncLatency("750ms")
	if err != nil || l != (estimate.Latency{Source: estimate.LatencyFlag, PerWrite: 750 * time.Millisecond}) {
		t.Errorf("750ms: %+v, %v", l, err)
	}
	for _, bad := range []string{"soon", "-1s", ""} {
		if _, err := estimate.ParseSyncLatency(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
