package revisions

import (
	"fmt"
	"sort"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// DaemonSetResolution is what one DaemonSet sync decides about revisions.
type DaemonSetResolution struct {
	// Current is the revision of spec.template: kept (the highest-numbered match), renumbered
	// to max(old)+1 when lower (Action Reused), or new (Action Created; Name and Revision set).
	Current *appsv1.ControllerRevision
	// Action: Unchanged, Reused or Created.
	Action Action
	// Old are the revisions that do not match the template (cleanupHistory's candidates).
	Old []*appsv1.ControllerRevision
	// Duplicates are other matching revisions the controller deletes (dedupCurHistories).
	Duplicates []*appsv1.ControllerRevision
	// Collision is true when the name of a new revision is taken by one with other data: the
	// sync fails and the controller raises status.collisionCount by one; the next sync tries
	// the next name.
	Collision bool
}

// ResolveDaemonSet returns the revision the DaemonSet controller finds or makes for ds
// (server-defaulted, with its status) among the revisions it owns.
//
// Mirrors constructHistory, dedupCurHistories, Match and snapshot,
// pkg/controller/daemon/update.go, v1.36.3.
func ResolveDaemonSet(ds *appsv1.DaemonSet, revisions []*appsv1.ControllerRevision) (DaemonSetResolution, error) {
	patch, err := Patch(&ds.Spec.Template)
	if err != nil {
		return DaemonSetResolution{}, fmt.Errorf("daemonset %s/%s: %w", ds.Namespace, ds.Name, err)
	}
	var res DaemonSetResolution
	var matching []*appsv1.ControllerRevision
	for _, r := range revisions {
		if string(r.Data.Raw) == string(patch) {
			matching = append(matching, r.DeepCopy())
		} else {
			res.Old = append(res.Old, r.DeepCopy())
		}
	}
	next := maxRevision(res.Old) + 1
	if len(matching) == 0 {
		hash := DaemonSetHash(&ds.Spec.Template, ds.Status.CollisionCount)
		name := DaemonSetName(ds.Name, hash)
		if taken := find(revisions, name); taken != nil {
			res.Collision = true
			return res, nil
		}
		cur := &appsv1.ControllerRevision{Data: runtimeRaw(patch), Revision: next}
		cur.Name, cur.Namespace = name, ds.Namespace
		cur.Labels = map[string]string{}
		for k, v := range ds.Spec.Template.Labels {
			cur.Labels[k] = v
		}
		cur.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] = hash
		res.Current, res.Action = cur, Created
		return res, nil
	}
	var keep *appsv1.ControllerRevision
	var max int64
	for _, r := range matching {
		if r.Revision >= max {
			keep, max = r, r.Revision
		}
	}
	for _, r := range matching {
		if r.Name != keep.Name {
			res.Duplicates = append(res.Duplicates, r)
		}
	}
	res.Current, res.Action = keep, Unchanged
	if keep.Revision < next {
		keep.Revision = next
		res.Action = Reused
	}
	return res, nil
}

// CleanupDaemonSet returns the old revisions the DaemonSet controller deletes, lowest number
// first: len(old) - limit of them (limit: spec.revisionHistoryLimit, nil counts as 10),
// skipping any whose controller-revision-hash label a pod carries (liveHashes).
//
// Mirrors cleanupHistory, pkg/controller/daemon/update.go, v1.36.3.
func CleanupDaemonSet(old []*appsv1.ControllerRevision, liveHashes map[string]bool, limit *int32) []*appsv1.ControllerRevision {
	keep := 10
	if limit != nil {
		keep = int(*limit)
	}
	toKill := len(old) - keep
	if toKill <= 0 {
		return nil
	}
	sorted := append([]*appsv1.ControllerRevision(nil), old...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Revision < sorted[j].Revision })
	var out []*appsv1.ControllerRevision
	for _, r := range sorted {
		if toKill <= 0 {
			break
		}
		if liveHashes[r.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]] {
			continue
		}
		out = append(out, r)
		toKill--
	}
	return out
}

func maxRevision(revisions []*appsv1.ControllerRevision) int64 {
	var max int64
	for _, r := range revisions {
		if r.Revision > max {
			max = r.Revision
		}
	}
	return max
}

func runtimeRaw(b []byte) runtime.RawExtension { return runtime.RawExtension{Raw: b} }
