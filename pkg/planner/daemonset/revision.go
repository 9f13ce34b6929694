package daemonset

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/planner/revisions"
)

// maxCollisions bounds the hash collisions resolveHistory follows (the controller would go
// on; a history with this many taken names is not a real one).
const maxCollisions = 100

// history is the revisions as the first successful sync leaves them.
type history struct {
	update Revision
	// old are the other revisions (cleanupHistory's candidates).
	old []Revision
	// duplicates are other revisions matching the template, deleted by dedupCurHistories,
	// which relabels every pod with the kept revision's hash.
	duplicates []Revision
}

// resolveHistory follows constructHistory through hash collisions: each taken name costs a
// failed sync and raises status.collisionCount by one, until a free name is found. The
// decisions are pkg/planner/revisions' (ResolveDaemonSet).
func resolveHistory(ds *appsv1.DaemonSet, revs []*appsv1.ControllerRevision) (history, error) {
	d := ds
	for collisions := 0; collisions <= maxCollisions; collisions++ {
		res, err := revisions.ResolveDaemonSet(d, revs)
		if err != nil {
			return history{}, err
		}
		if res.Collision {
			d = d.DeepCopy()
			n := int32(1)
			if d.Status.CollisionCount != nil {
				n = *d.Status.CollisionCount + 1
			}
			d.Status.CollisionCount = &n
			continue
		}
		h := history{update: revisionOf(res.Current)}
		h.update.Collisions = collisions
		switch res.Action {
		case revisions.Reused:
			h.update.Reused = true
			for _, r := range revs {
				if r.Name == res.Current.Name {
					h.update.RenumberedFrom = r.Revision
				}
			}
		case revisions.Unchanged:
			h.update.Reused = true
		}
		for _, r := range res.Old {
			h.old = append(h.old, revisionOf(r))
		}
		for _, r := range res.Duplicates {
			h.duplicates = append(h.duplicates, revisionOf(r))
		}
		return h, nil
	}
	return history{}, fmt.Errorf("daemonset %s/%s: more than %d ControllerRevision name collisions", ds.Namespace, ds.Name, maxCollisions)
}

// revisionOf reads a ControllerRevision's name, hash (its controller-revision-hash label; the
// controller labels a revision without one with its name) and number.
func revisionOf(r *appsv1.ControllerRevision) Revision {
	hash, ok := r.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]
	if !ok {
		hash = r.Name
	}
	return Revision{Name: r.Name, Hash: hash, Number: r.Revision}
}
