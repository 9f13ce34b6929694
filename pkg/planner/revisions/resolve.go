package revisions

import (
	"fmt"
	"maps"

	appsv1 "k8s.io/api/apps/v1"
)

// Action says how a sync arrives at the update revision.
type Action string

const (
	// Unchanged: the latest revision already holds the template.
	Unchanged Action = "Unchanged"
	// Reused: an older revision holds the template (a rollback); the controller renumbers it
	// to the next number, keeping its name and hash.
	Reused Action = "Reused"
	// Created: no revision holds the template; the controller creates one.
	Created Action = "Created"
)

// Resolution is what one StatefulSet sync decides about revisions.
type Resolution struct {
	// Current is the revision status.currentRevision names, or Update when none matches.
	Current *appsv1.ControllerRevision
	// Update is the revision of spec.template, after any renumbering or creation.
	Update *appsv1.ControllerRevision
	// Action says whether Update was unchanged, reused (renumbered) or created.
	Action Action
	// CollisionCount is the collision count the sync writes to status.collisionCount: the
	// input's, plus one for every name taken by a revision with other data.
	CollisionCount int32
	// Revisions is the history after the sync, sorted (Sort): a reused revision renumbered,
	// a created one appended. Copies: the input is never modified.
	Revisions []*appsv1.ControllerRevision
}

// ResolveStatefulSet returns the current and update revisions the StatefulSet controller
// finds or makes for set (server-defaulted, with its status) among revisions (those it owns),
// as one sync does.
//
// Example: revisions web-aaa (1, image v1) and web-bbb (2, image v2), template back at v1:
// Action Reused, Update is web-aaa renumbered to 3.
//
// Mirrors getStatefulSetRevisions, newRevision and history's CreateControllerRevision,
// pkg/controller/statefulset and pkg/controller/history, v1.36.3.
func ResolveStatefulSet(set *appsv1.StatefulSet, revisions []*appsv1.ControllerRevision) (Resolution, error) {
	sorted := make([]*appsv1.ControllerRevision, len(revisions))
	for i, r := range revisions {
		sorted[i] = r.DeepCopy()
	}
	Sort(sorted)
	var res Resolution
	if set.Status.CollisionCount != nil {
		res.CollisionCount = *set.Status.CollisionCount
	}
	patch, err := Patch(&set.Spec.Template)
	if err != nil {
		return Resolution{}, fmt.Errorf("statefulset %s/%s: %w", set.Namespace, set.Name, err)
	}
	next := Next(sorted)
	proposed := &appsv1.ControllerRevision{}
	proposed.Data.Raw = patch
	var equal *appsv1.ControllerRevision
	for _, r := range sorted {
		if Equal(r, proposed) {
			equal = r
		}
	}
	n := len(sorted)
	switch {
	case equal != nil && Equal(sorted[n-1], equal):
		res.Update, res.Action = sorted[n-1], Unchanged
	case equal != nil:
		equal.Revision = next
		res.Update, res.Action = equal, Reused
	case n > 0 && semanticallyEqual(sorted[n-1], patch):
		res.Update, res.Action = sorted[n-1], Unchanged
	default:
		res.Update = newStatefulSetRevision(set, patch, next, &res.CollisionCount, sorted)
		res.Action = Created
		if !contains(sorted, res.Update.Name) {
			sorted = append(sorted, res.Update)
		}
	}
	for _, r := range sorted {
		if r.Name == set.Status.CurrentRevision {
			res.Current = r
			break
		}
	}
	if res.Current == nil {
		res.Current = res.Update
	}
	Sort(sorted)
	res.Revisions = sorted
	return res, nil
}

// newStatefulSetRevision returns the revision CreateControllerRevision ends with: the first
// name, counting collisionCount up, that no revision with other data holds (a revision with
// the same name and data is returned as it is). collisionCount is updated in place.
func newStatefulSetRevision(set *appsv1.StatefulSet, patch []byte, number int64, collisionCount *int32, existing []*appsv1.ControllerRevision) *appsv1.ControllerRevision {
	for {
		hash := Hash(patch, collisionCount)
		name := Name(set.Name, hash)
		taken := find(existing, name)
		if taken == nil {
			r := &appsv1.ControllerRevision{Data: runtimeRaw(patch), Revision: number}
			r.Name, r.Namespace = name, set.Namespace
			r.Labels = maps.Clone(set.Spec.Template.Labels)
			if r.Labels == nil {
				r.Labels = map[string]string{}
			}
			r.Labels["controller.kubernetes.io/hash"] = hash
			r.Annotations = maps.Clone(set.Annotations)
			if r.Annotations == nil {
				r.Annotations = map[string]string{}
			}
			return r
		}
		if string(taken.Data.Raw) == string(patch) {
			return taken
		}
		*collisionCount++
	}
}

// semanticallyEqual reports whether the latest revision, decoded and encoded again, gives
// patch: the StatefulSetSemanticRevisionComparison check (on by default) without its
// defaulting step (see the package doc).
func semanticallyEqual(latest *appsv1.ControllerRevision, patch []byte) bool {
	template, err := Template(latest.Data.Raw)
	if err != nil {
		return false
	}
	again, err := Patch(template)
	return err == nil && string(again) == string(patch)
}

// TruncateStatefulSet returns the revisions the StatefulSet controller deletes at the end of
// a sync, oldest first: those that are not live (current, update, or the
// controller-revision-hash label of a pod in podRevisions) beyond limit
// (spec.revisionHistoryLimit; nil counts as the API default 10; negative keeps all).
// revisions is the history as the sync listed it (before a renumbering or creation), sorted.
//
// Example: limit 2, revisions 1..5, live 4 and 5: deletes revision 1 (history 1, 2, 3 keeps
// 2 and 3).
//
// Mirrors truncateHistory, pkg/controller/statefulset/stateful_set_control.go, v1.36.3.
func TruncateStatefulSet(revisions []*appsv1.ControllerRevision, current, update string, podRevisions []string, limit *int32) []*appsv1.ControllerRevision {
	live := map[string]bool{current: true, update: true}
	for _, r := range podRevisions {
		live[r] = true
	}
	var history []*appsv1.ControllerRevision
	for _, r := range revisions {
		if !live[r.Name] {
			history = append(history, r)
		}
	}
	keep := 10
	if limit != nil {
		keep = int(*limit)
	}
	if keep < 0 || len(history) <= keep {
		return nil
	}
	return history[:len(history)-keep]
}

func find(revisions []*appsv1.ControllerRevision, name string) *appsv1.ControllerRevision {
	for _, r := range revisions {
		if r.Name == name {
			return r
		}
	}
	return nil
}

func contains(revisions []*appsv1.ControllerRevision, name string) bool {
	return find(revisions, name) != nil
}
