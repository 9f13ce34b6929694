package planner_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// TestSimulateHashCollisionSyncs checks how many syncs hash collisions cost. Each time the
// create of the new ReplicaSet fails with AlreadyExists on a ReplicaSet of another template,
// getNewReplicaSet (sync.go, v1.36.3) bumps status.collisionCount by one, writes the status
// and returns the error: the Deployment is requeued and the next sync hashes again. So k
// collisions cost k syncs, and the create happens in sync k+1.
func TestSimulateHashCollisionSyncs(t *testing.T) {
	d := testutil.Deployment("web").Replicas(2).Image("nginx:1.19").Build()
	hash := func(cc *int32) string { return planner.ComputeHash(&d.Spec.Template, cc) }
	// squatter is an old ReplicaSet (another template) that carries the name name.
	squatter := func(image string, revision int64, created int, name string) *appsv1.ReplicaSet {
		return testutil.ReplicaSetFor(d).Image(image).Revision(revision).Created(created).Name(name).Build()
	}
	tests := []struct {
		name           string
		d              *appsv1.Deployment
		rss            []*appsv1.ReplicaSet
		wantCollisions *int32
		wantCreateSync int
	}{
		{
			name:           "no collision: create in sync 1",
			d:              d,
			rss:            []*appsv1.ReplicaSet{squatter("nginx:1.18", 1, 0, "web-old")},
			wantCollisions: nil, wantCreateSync: 1,
		},
		{
			name:           "one collision (count nil -> 1): create in sync 2",
			d:              d,
			rss:            []*appsv1.ReplicaSet{squatter("nginx:1.18", 1, 0, "web-"+hash(nil))},
			wantCollisions: ptr.To[int32](1), wantCreateSync: 2,
		},
		{
			name: "two collisions (nil -> 1 -> 2): create in sync 3",
			d:    d,
			rss: []*appsv1.ReplicaSet{
				squatter("nginx:1.17", 1, 0, "web-"+hash(nil)),
				squatter("nginx:1.18", 2, 1, "web-"+hash(ptr.To[int32](1))),
			},
			wantCollisions: ptr.To[int32](2), wantCreateSync: 3,
		},
		{
			name: "status.collisionCount 1 already, one more collision: create in sync 2",
			d:    testutil.Deployment("web").Replicas(2).Image("nginx:1.19").CollisionCount(1).Build(),
			rss: []*appsv1.ReplicaSet{
				squatter("nginx:1.17", 1, 0, "web-"+hash(nil)), // no longer in the way
				squatter("nginx:1.18", 2, 1, "web-"+hash(ptr.To[int32](1))),
			},
			wantCollisions: ptr.To[int32](2), wantCreateSync: 2,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := planner.Simulate(planner.Input{Deployment: tc.d, ReplicaSets: tc.rss, Readiness: planner.ReadinessNever})
			if err != nil {
				t.Fatal(err)
			}
			h := hash(tc.wantCollisions)
			want := planner.NewReplicaSet{Name: "web-" + h, PodTemplateHash: h, Revision: int64(len(tc.rss)) + 1,
				CollisionCount: tc.wantCollisions, Created: true}
			if diff := cmp.Diff(want, plan.NewReplicaSet); diff != "" {
				t.Errorf("NewReplicaSet (-want +got):\n%s", diff)
			}
			if len(plan.Steps) == 0 || !plan.Steps[0].Create || plan.Steps[0].Sync != tc.wantCreateSync {
				t.Errorf("steps %+v, want the create first, in sync %d", plan.Steps, tc.wantCreateSync)
			}
		})
	}
}
