package conformance

import (
	"fmt"
	"testing"

	"k8s.io/utils/ptr"
)

// TestExamples runs named worked examples, and every planner bug the generator found (as its
// minimal scenario), through the controller and the planner under each readiness model.
func TestExamples(t *testing.T) {
	cases := []struct {
		name  string
		build func() *fixture
	}{
		{
			name: "10 replicas 25%/25%: create new at 3 and old 10->8, then new 3->5 (stalls under never)",
			build: func() *fixture {
				f := newFixture("web", 10, "app:v2").rollingUpdate("25%", "25%")
				desired, max := f.scaledAt(10)
				f.addRS(rsOpts{image: "app:v1", replicas: 10, available: 10, revision: 1, desired: desired, max: max})
				return f.finish(true)
			},
		},
		{
			name: "maxSurge 1 maxUnavailable 0 surges one pod at a time",
			build: func() *fixture {
				f := newFixture("web", 5, "app:v2").rollingUpdate("1", "0")
				desired, max := f.scaledAt(5)
				f.addRS(rsOpts{image: "app:v1", replicas: 5, available: 5, revision: 1, desired: desired, max: max})
				return f.finish(true)
			},
		},
		{
			name: "Recreate scales every old ReplicaSet to 0, then creates the new one at full size",
			build: func() *fixture {
				f := newFixture("web", 6, "app:v3").recreate()
				desired, max := f.scaledAt(6)
				f.addRS(rsOpts{image: "app:v1", replicas: 2, available: 2, revision: 1, desired: desired, max: max})
				f.addRS(rsOpts{image: "app:v2", replicas: 4, available: 3, revision: 2, created: 60, desired: desired, max: max})
				return f.finish(true)
			},
		},
		{
			name: "scaling event mid-rollout: 10 -> 20 replicas with old 8 and new 5 scales both proportionally",
			build: func() *fixture {
				f := newFixture("web", 20, "app:v2").rollingUpdate("25%", "25%")
				desired, max := f.scaledAt(10)
				f.addRS(rsOpts{image: "app:v1", replicas: 8, available: 8, revision: 1, desired: desired, max: max})
				f.addRS(rsOpts{image: "app:v2", replicas: 5, available: 0, revision: 2, created: 60, desired: desired, max: max})
				return f.finish(true)
			},
		},
		{
			name: "rollback reuses the old ReplicaSet of the template and renumbers it",
			build: func() *fixture {
				f := newFixture("web", 4, "app:v1").rollingUpdate("25%", "25%")
				f.d.Spec.RevisionHistoryLimit = ptr.To[int32](1)
				desired, max := f.scaledAt(4)
				f.addRS(rsOpts{image: "app:v1", replicas: 0, available: 0, revision: 1, desired: desired, max: max})
				f.addRS(rsOpts{image: "app:v2", replicas: 0, available: 0, revision: 2, created: 60, desired: desired, max: max})
				f.addRS(rsOpts{image: "app:v3", replicas: 4, available: 4, revision: 3, created: 120, desired: desired, max: max})
				return f.finish(true)
			},
		},
		{
			name: "paused rollout in flight with a replica change is scaled proportionally, nothing created",
			build: func() *fixture {
				f := newFixture("web", 7, "app:v3").rollingUpdate("2", "1")
				f.d.Spec.Paused = true
				desired, max := f.scaledAt(12)
				f.addRS(rsOpts{image: "app:v1", replicas: 9, available: 9, revision: 1, desired: desired, max: max})
				f.addRS(rsOpts{image: "app:v2", replicas: 5, available: 2, revision: 2, created: 60, desired: desired, max: max})
				return f.finish(true)
			},
		},
		{
			name: "an orphan whose labels match is adopted and rolled like an owned ReplicaSet",
			build: func() *fixture {
				f := newFixture("web", 4, "app:v3").rollingUpdate("1", "1")
				desired, max := f.scaledAt(4)
				f.addRS(rsOpts{image: "app:v1", replicas: 2, available: 2, revision: 1, desired: desired, max: max, orphan: true})
				f.addRS(rsOpts{image: "app:v2", replicas: 2, available: 1, revision: 2, created: 60, desired: desired, max: max})
				return f.finish(true)
			},
		},
		{
			// Planner bug found by seed 20260101 #107: the planner listed web-<v3> for cleanup.
			// The desired-replicas annotation (12) of the only active ReplicaSet differs from
			// spec.replicas (6), so every sync is a scaling event through sync(), whose
			// scale() leaves a lone ReplicaSet of the right size and its annotation alone:
			// rolloutRolling, and with it cleanupDeployment, never runs.
			name: "stale desired-replicas on the only active ReplicaSet: every sync is a scaling event, no cleanup",
			build: func() *fixture {
				f := newFixture("web", 6, "app:v1").rollingUpdate("0%", "100%")
				f.d.Spec.RevisionHistoryLimit = ptr.To[int32](1)
				desired, max := f.scaledAt(12)
				f.addRS(rsOpts{image: "app:v1", replicas: 6, available: 0, revision: 5, desired: desired, max: max})
				f.addRS(rsOpts{image: "app:v2", replicas: 0, available: 0, revision: 4, created: 101})
				f.addRS(rsOpts{image: "app:v3", replicas: 0, available: 0, revision: 3, created: 292})
				return f.finish(true)
			},
		},
		{
			// Planner bug found by seed 1 #969: the planner kept the ReplicaSet at 4. sync()
			// hands cleanupDeployment the old ReplicaSets as listed before scale() wrote them,
			// so the lone old ReplicaSet at 0 is scaled up to spec.replicas and then deleted
			// in the same sync (revisionHistoryLimit 0).
			name: "paused, revisionHistoryLimit 0, only an old ReplicaSet at 0: scaled up, then deleted in the same sync",
			build: func() *fixture {
				f := newFixture("web", 4, "app:v2").rollingUpdate("25%", "25%")
				f.d.Spec.Paused = true
				f.d.Spec.RevisionHistoryLimit = ptr.To[int32](0)
				desired, max := f.scaledAt(4)
				f.addRS(rsOpts{image: "app:v1", replicas: 0, available: 0, revision: 1, desired: desired, max: max})
				return f.finish(true)
			},
		},
		{
			// Planner bug found by seed 20260101 #225 (generator with lagging statuses): the
			// planner stopped after sync 1, which wrote nothing. The old ReplicaSet is at 0
			// but a pod still terminates (status.replicas 1); when the ReplicaSet controller
			// updates the status the Deployment is synced again and Recreate creates the new
			// ReplicaSet.
			name: "Recreate waits for a terminating old pod: the ReplicaSet status update resyncs and creates the new one",
			build: func() *fixture {
				f := newFixture("web", 3, "app:v2").recreate()
				desired, max := f.scaledAt(3)
				f.addRS(rsOpts{image: "app:v1", replicas: 0, available: 0, revision: 1, desired: desired, max: max, statusReplicas: ptr.To[int32](1)})
				return f.finish(false)
			},
		},
		{
			// Planner bug found by seed 20260101 #83: the planner left the oldest ReplicaSet
			// out of the cleanup. Its status.observedGeneration lags its generation at the
			// start, but the ReplicaSet controller observes it before the rollout completes.
			name: "an old ReplicaSet whose status lags its generation is cleaned up once observed",
			build: func() *fixture {
				f := newFixture("web", 4, "app:v3").rollingUpdate("25%", "25%")
				f.d.Spec.RevisionHistoryLimit = ptr.To[int32](0)
				desired, max := f.scaledAt(4)
				f.addRS(rsOpts{image: "app:v1", replicas: 0, available: 0, revision: 1, desired: desired, max: max, staleGeneration: true})
				f.addRS(rsOpts{image: "app:v2", replicas: 4, available: 4, revision: 2, created: 60, desired: desired, max: max})
				return f.finish(true)
			},
		},
		{
			// Planner bug found by seed 20260101 #970: under instant the planner made every
			// pod available after the sync that hit the hash collision, which writes only the
			// Deployment's status (collisionCount). With the pods still unavailable, the sync
			// that creates the new ReplicaSet removes the unhealthy replicas of web-<v1>
			// (cleanupUnhealthyReplicas) instead of scaling the oldest, web-<v0>.
			name: "hash collision: the collision sync writes no ReplicaSet, so no pod becomes available under instant",
			build: func() *fixture {
				f := newFixture("web", 6, "app:v2").rollingUpdate("1", "2")
				desired, max := f.scaledAt(6)
				f.addRS(rsOpts{image: "app:v0", replicas: 3, available: 3, revision: 1, desired: desired, max: max})
				f.addRS(rsOpts{image: "app:v1", replicas: 3, available: 1, revision: 2, created: 60, desired: desired, max: max})
				f.takeNewName(f.addRS(rsOpts{image: "app:v9", replicas: 0, available: 0, created: 30, desired: desired, max: max}))
				return f.finish(true)
			},
		},
		{
			// Planner bug found by seed 20260101 #769: with an unparsable revision on the
			// existing new ReplicaSet, SetNewReplicaSetAnnotations reports no change whatever
			// Deployment annotations it copied, so nothing is written and (instant) no pod
			// becomes available; the planner counted an annotation write.
			name: "unparsable revision on the new ReplicaSet: no annotation write, pods stay unavailable",
			build: func() *fixture {
				f := newFixture("web", 4, "app:v1").recreate()
				f.d.Spec.Paused = true
				f.d.Annotations = map[string]string{"example.com/team": "payments"}
				desired, max := f.scaledAt(4)
				f.addRS(rsOpts{image: "app:v1", replicas: 0, available: 0, revision: 2, badRevision: true, desired: desired, max: max})
				f.addRS(rsOpts{image: "app:v2", replicas: 4, available: 1, revision: 3, created: 60, desired: desired, max: max})
				return f.finish(true)
			},
		},
		{
			// Planner bug found by seed 20260101 #530: the planner named the (never created)
			// new ReplicaSet after resolving a hash collision with a ReplicaSet that the
			// paused cleanup deletes; the controller, once resumed, takes the first name.
			name: "paused: cleanup deletes the ReplicaSet the new name collided with, the new ReplicaSet keeps its first name",
			build: func() *fixture {
				f := newFixture("web", 3, "app:v2").rollingUpdate("25%", "25%")
				f.d.Spec.Paused = true
				f.d.Spec.RevisionHistoryLimit = ptr.To[int32](0)
				desired, max := f.scaledAt(3)
				f.takeNewName(f.addRS(rsOpts{image: "app:v0", replicas: 0, available: 0, revision: 1, desired: desired, max: max}))
				f.addRS(rsOpts{image: "app:v1", replicas: 3, available: 3, revision: 2, created: 60, desired: desired, max: max})
				return f.finish(true)
			},
		},
		{
			// Planner bug found by seed 1 #1940: the planner listed the cleanup in revision
			// order. The rollout is complete at the start, so the first sync deletes what is
			// cleanable then; web-<v1>'s observedGeneration lags, so it goes one sync later,
			// after web-<v2> although its revision is lower.
			name: "complete at the start: cleanup deletes a ReplicaSet whose status lags one sync later",
			build: func() *fixture {
				f := newFixture("web", 3, "app:v3").rollingUpdate("25%", "25%")
				f.d.Spec.RevisionHistoryLimit = ptr.To[int32](0)
				desired, max := f.scaledAt(3)
				f.addRS(rsOpts{image: "app:v1", replicas: 0, available: 0, revision: 1, desired: desired, max: max, staleGeneration: true})
				f.addRS(rsOpts{image: "app:v2", replicas: 0, available: 0, revision: 2, created: 60, desired: desired, max: max})
				f.addRS(rsOpts{image: "app:v3", replicas: 3, available: 3, revision: 3, created: 120, desired: desired, max: max})
				return f.finish(false)
			},
		},
		{
			// Planner bug found by seed 6 #1500: the planner deleted nothing. With an
			// unparsable revision (web-<v2>) ReplicaSetsByRevision is not a consistent order
			// and the sort's result depends on its input order; sync() hands the old
			// ReplicaSets to cleanupDeployment newest first (FindActiveOrLatest sorted them in
			// place), so web-<v2> sorts first and is deleted.
			name: "paused cleanup with an unparsable revision sorts the old ReplicaSets from newest first",
			build: func() *fixture {
				f := newFixture("web", 22, "app:v5").rollingUpdate("5", "33%")
				f.d.Spec.Paused = true
				f.d.Spec.RevisionHistoryLimit = ptr.To[int32](3)
				desired, max := f.scaledAt(22)
				f.addRS(rsOpts{image: "app:v1", replicas: 3, available: 3, revision: 2, desired: desired, max: max})
				f.addRS(rsOpts{image: "app:v2", replicas: 0, available: 0, revision: 3, badRevision: true, created: 193, desired: desired, max: max})
				f.addRS(rsOpts{image: "app:v3", replicas: 5, available: 5, created: 738, desired: desired, max: max})
				f.addRS(rsOpts{image: "app:v4", replicas: 13, available: 0, revision: 5, created: 756, desired: desired, max: max})
				return f.finish(true)
			},
		},
	}
	for _, tc := range cases {
		for _, readiness := range readinesses {
			t.Run(fmt.Sprintf("%s/%s", tc.name, readiness), func(t *testing.T) {
				f := tc.build()
				sc := &scenario{Name: tc.name + " " + string(readiness), Readiness: readiness, Deployment: f.d, ReplicaSets: f.rss}
				if diff, err := check(sc); diff != "" || err != nil {
					report(t, sc, diff, err)
				}
			})
		}
	}
}
