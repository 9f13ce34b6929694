package conformance

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/test/conformance/upstream/deployment"
)

// TestHarness checks the harness on outcomes known from a real cluster, independently of the
// planner: if these fail, the referee itself is wrong.
func TestHarness(t *testing.T) {
	// 10 replicas on app:v1, then the template changes to app:v2 (25%/25%).
	tenReplicas := func() *fixture {
		f := newFixture("web", 10, "app:v2").rollingUpdate("25%", "25%")
		desired, max := f.scaledAt(10)
		f.addRS(rsOpts{image: "app:v1", replicas: 10, available: 10, revision: 1, desired: desired, max: max})
		return f.finish(true)
	}
	newName := func(t *testing.T, f *fixture) string {
		t.Helper()
		r, err := deployment.Run(context.Background(), f.scenario(deployment.ReadinessNever))
		if err != nil {
			t.Fatal(err)
		}
		return r.NewReplicaSet
	}

	t.Run("never: 10 replicas 25%/25% creates new at 3, scales old 10->8, new 3->5, then stalls", func(t *testing.T) {
		f := tenReplicas()
		old := f.rss[0].Name
		got, err := deployment.Run(context.Background(), f.scenario(deployment.ReadinessNever))
		if err != nil {
			t.Fatal(err)
		}
		newRS := got.NewReplicaSet
		want := []deployment.Write{
			{ReplicaSet: newRS, From: 0, To: 3, Create: true, Sync: 1},
			{ReplicaSet: old, From: 10, To: 8, Sync: 1},
			{ReplicaSet: newRS, From: 3, To: 5, Sync: 2},
		}
		if diff := cmp.Diff(want, got.Writes); diff != "" {
			t.Errorf("writes (-want +got):\n%s", diff)
		}
		if got.Complete || !got.NewReplicaSetExists || got.NewRevision != 2 || len(got.Deleted) != 0 {
			t.Errorf("complete=%v exists=%v revision=%d deleted=%v, want false true 2 []", got.Complete, got.NewReplicaSetExists, got.NewRevision, got.Deleted)
		}
		wantRSs := []deployment.ReplicaSetState{
			{Name: old, Replicas: 8, Available: 8, Revision: "1"},
			{Name: newRS, Replicas: 5, Available: 0, Revision: "2"},
		}
		if diff := cmp.Diff(wantRSs, got.ReplicaSets); diff != "" {
			t.Errorf("final replica sets (-want +got):\n%s", diff)
		}
	})

	t.Run("batched: the same rollout completes and cleanup keeps the old ReplicaSet at limit 1", func(t *testing.T) {
		f := tenReplicas()
		f.d.Spec.RevisionHistoryLimit = ptr.To[int32](1)
		got, err := deployment.Run(context.Background(), f.scenario(deployment.ReadinessBatched))
		if err != nil {
			t.Fatal(err)
		}
		if !got.Complete {
			t.Fatalf("rollout did not complete: %+v", got)
		}
		// The new RS ends at 10 and the old one at 0, every write between them respects the
		// fenceposts: total <= 13 and, since nothing new is available before a write is
		// waited for, no old scale-down beyond maxUnavailable at once.
		sizes := map[string]int32{got.Writes[0].ReplicaSet: 0, f.rss[0].Name: 10}
		for _, w := range got.Writes {
			if sizes[w.ReplicaSet] != w.From {
				t.Fatalf("write %+v does not start from the current size %d", w, sizes[w.ReplicaSet])
			}
			sizes[w.ReplicaSet] = w.To
			total := int32(0)
			for _, s := range sizes {
				total += s
			}
			if total > 13 {
				t.Fatalf("after write %+v the total %d exceeds replicas+maxSurge 13", w, total)
			}
		}
		if sizes[got.NewReplicaSet] != 10 || sizes[f.rss[0].Name] != 0 || len(got.Deleted) != 0 {
			t.Errorf("end sizes %v, deleted %v: want new 10, old 0, nothing deleted", sizes, got.Deleted)
		}
	})

	t.Run("batched: revisionHistoryLimit 0 deletes the scaled-down old ReplicaSet once complete", func(t *testing.T) {
		f := tenReplicas()
		f.d.Spec.RevisionHistoryLimit = ptr.To[int32](0)
		got, err := deployment.Run(context.Background(), f.scenario(deployment.ReadinessBatched))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{f.rss[0].Name}, got.Deleted); diff != "" || !got.Complete {
			t.Errorf("complete=%v, deleted (-want +got):\n%s", got.Complete, diff)
		}
	})

	t.Run("never: Recreate scales old to 0 in sync 1 and creates new at full size in sync 2", func(t *testing.T) {
		f := newFixture("web", 4, "app:v2").recreate()
		desired, max := f.scaledAt(4)
		f.addRS(rsOpts{image: "app:v1", replicas: 4, available: 4, revision: 1, desired: desired, max: max})
		f.finish(true)
		got, err := deployment.Run(context.Background(), f.scenario(deployment.ReadinessNever))
		if err != nil {
			t.Fatal(err)
		}
		want := []deployment.Write{
			{ReplicaSet: f.rss[0].Name, From: 4, To: 0, Sync: 1},
			{ReplicaSet: newName(t, f), From: 0, To: 4, Create: true, Sync: 2},
		}
		if diff := cmp.Diff(want, got.Writes); diff != "" {
			t.Errorf("writes (-want +got):\n%s", diff)
		}
	})

	t.Run("instant: maxSurge 1 maxUnavailable 0 alternates new +1 and old -1", func(t *testing.T) {
		f := newFixture("web", 3, "app:v2").rollingUpdate("1", "0")
		desired, max := f.scaledAt(3)
		f.addRS(rsOpts{image: "app:v1", replicas: 3, available: 3, revision: 1, desired: desired, max: max})
		f.finish(true)
		got, err := deployment.Run(context.Background(), f.scenario(deployment.ReadinessInstant))
		if err != nil {
			t.Fatal(err)
		}
		old, newRS := f.rss[0].Name, got.NewReplicaSet
		want := []deployment.Write{
			{ReplicaSet: newRS, From: 0, To: 1, Create: true},
			{ReplicaSet: old, From: 3, To: 2},
			{ReplicaSet: newRS, From: 1, To: 2},
			{ReplicaSet: old, From: 2, To: 1},
			{ReplicaSet: newRS, From: 2, To: 3},
			{ReplicaSet: old, From: 1, To: 0},
		}
		if diff := cmp.Diff(want, got.Writes, cmpopts.IgnoreFields(deployment.Write{}, "Sync")); diff != "" {
			t.Errorf("writes (-want +got):\n%s", diff)
		}
		if !got.Complete {
			t.Errorf("not complete: %+v", got.ReplicaSets)
		}
	})

	t.Run("an orphan whose labels match is adopted by one patch and then scaled down", func(t *testing.T) {
		f := newFixture("web", 2, "app:v2").rollingUpdate("1", "0")
		desired, max := f.scaledAt(2)
		f.addRS(rsOpts{image: "app:v1", replicas: 2, available: 2, revision: 1, desired: desired, max: max, orphan: true})
		f.finish(true)
		got, err := deployment.Run(context.Background(), f.scenario(deployment.ReadinessInstant))
		if err != nil {
			t.Fatal(err)
		}
		if got.ReplicaSetPatches != 1 || !got.Complete {
			t.Errorf("patches=%d complete=%v, want 1 true (writes %+v)", got.ReplicaSetPatches, got.Complete, got.Writes)
		}
	})

	t.Run("a Deployment with no ReplicaSet creates one at full size", func(t *testing.T) {
		f := newFixture("web", 5, "app:v1").rollingUpdate("25%", "25%").finish(true)
		got, err := deployment.Run(context.Background(), f.scenario(deployment.ReadinessNever))
		if err != nil {
			t.Fatal(err)
		}
		want := []deployment.Write{{ReplicaSet: got.NewReplicaSet, From: 0, To: 5, Create: true, Sync: 1}}
		if diff := cmp.Diff(want, got.Writes); diff != "" || got.NewRevision != 1 {
			t.Errorf("revision %d, writes (-want +got):\n%s", got.NewRevision, diff)
		}
	})
}
