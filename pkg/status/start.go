package status

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/deployutil"
	"github.com/rollplan/kubectl-rollplan/pkg/estimate"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// StartState returns the planner input for the state the rollout of d (live, with rss, the
// ReplicaSets its controller claims) started from, so that planning from it gives the whole
// rollout's steps:
//   - the new ReplicaSet (deployutil.FindNewReplicaSet) is absent when this rollout created
//     it (it is the newest ReplicaSet; Input.Now is its creation time, so the planner names
//     and orders it the same); a reused one (a rollback) is at 0 replicas with the revision
//     it had before (the last entry of its revision-history);
//   - the previous ReplicaSet (the old one with the highest revision) is at spec.replicas
//     less the replicas of the other old ReplicaSets, and at least where it is now (the
//     controller only scales old ReplicaSets down during a rollout);
//   - every old pod is available, and the Deployment's status says so.
//
// When the rollout started from a state that was itself in flight (a change made in the
// middle of another rollout), the other old ReplicaSets' start is unknown: they keep their
// live replicas. Neither d nor rss is modified. Without a new ReplicaSet yet (the controller
// has not synced), the live state is the start.
func StartState(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) planner.Input {
	in := planner.Input{Deployment: d, ReplicaSets: rss}
	newRS := deployutil.FindNewReplicaSet(d, rss)
	if newRS == nil {
		return in
	}
	created := createdByRollout(newRS, rss)
	prev := previous(newRS, rss)
	replicas := ptr.Deref(d.Spec.Replicas, 1)
	var others int32
	for _, rs := range rss {
		if rs != newRS && rs != prev {
			others += ptr.Deref(rs.Spec.Replicas, 0)
		}
	}
	in.ReplicaSets = nil
	var total int32
	for _, rs := range rss {
		if rs == newRS && created {
			continue
		}
		c := rs.DeepCopy()
		switch {
		case rs == newRS:
			c.Spec.Replicas = ptr.To[int32](0)
			restoreRevision(c)
		case rs == prev:
			c.Spec.Replicas = ptr.To(max(ptr.Deref(rs.Spec.Replicas, 0), replicas-others))
		}
		n := ptr.Deref(c.Spec.Replicas, 0)
		c.Status.Replicas, c.Status.ReadyReplicas, c.Status.AvailableReplicas = n, n, n
		c.Status.FullyLabeledReplicas, c.Status.ObservedGeneration = n, c.Generation
		total += n
		in.ReplicaSets = append(in.ReplicaSets, c)
	}
	dc := d.DeepCopy()
	dc.Status.Replicas, dc.Status.ReadyReplicas, dc.Status.AvailableReplicas = total, total, total
	dc.Status.UpdatedReplicas, dc.Status.UnavailableReplicas = 0, 0
	in.Deployment = dc
	if created {
		in.Now = newRS.CreationTimestamp
	}
	return in
}

// createdByRollout reports whether newRS is the newest of rss (ByCreationTimestamp): the
// controller created it for this template. An older one was reused (a rollback).
func createdByRollout(newRS *appsv1.ReplicaSet, rss []*appsv1.ReplicaSet) bool {
	for _, rs := range rss {
		if rs != newRS && deployutil.ByCreationTimestamp(newRS, rs) < 0 {
			return false
		}
	}
	return true
}

// previous returns the old ReplicaSet of rss with the highest revision (the rollout's
// previous revision; ties: the newer one), nil when there is none.
func previous(newRS *appsv1.ReplicaSet, rss []*appsv1.ReplicaSet) *appsv1.ReplicaSet {
	var prev *appsv1.ReplicaSet
	var prevRev int64 = -1
	for _, rs := range rss {
		if rs == newRS {
			continue
		}
		rev, _ := deployutil.Revision(rs)
		if rev > prevRev || (rev == prevRev && deployutil.ByCreationTimestamp(prev, rs) < 0) {
			prev, prevRev = rs, rev
		}
	}
	return prev
}

// restoreRevision gives a reused ReplicaSet the revision it had before the controller
// bumped it: the last entry of its revision-history, which is dropped.
func restoreRevision(rs *appsv1.ReplicaSet) {
	hist := rs.Annotations[deployutil.RevisionHistoryAnnotation]
	if hist == "" {
		return
	}
	parts := strings.Split(hist, ",")
	last := parts[len(parts)-1]
	if _, err := strconv.ParseInt(last, 10, 64); err != nil {
		return
	}
	rs.Annotations[deployutil.RevisionAnnotation] = last
	if rest := slices.Delete(parts, len(parts)-1, len(parts)); len(rest) > 0 {
		rs.Annotations[deployutil.RevisionHistoryAnnotation] = strings.Join(rest, ",")
	} else {
		delete(rs.Annotations, deployutil.RevisionHistoryAnnotation)
	}
}

// LastRollout returns the last rollout of d (live, with rss, the ReplicaSets its controller
// claims) for estimate.FitSyncLatency, when its objects still show it whole: d is not paused,
// complete (kubectl's verdict) with the Progressing condition the controller set when the
// new ReplicaSet became available (reason NewReplicaSetAvailable, naming it), and the new
// ReplicaSet was created by that rollout (a reused one's start is not recorded). The rollout
// took from the new ReplicaSet's creationTimestamp to the condition's lastUpdateTime; it
// started from StartState. Otherwise it returns false and why, for people.
func LastRollout(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) (estimate.Rollout, bool, string) {
	newRS := deployutil.FindNewReplicaSet(d, rss)
	c := progressing(d)
	switch {
	case d.Spec.Paused:
		return estimate.Rollout{}, false, "the Deployment is paused"
	case newRS == nil:
		return estimate.Rollout{}, false, "no ReplicaSet has the Deployment's template"
	case !createdByRollout(newRS, rss):
		return estimate.Rollout{}, false, fmt.Sprintf("its ReplicaSet %s was reused (a rollback): the rollout's start is not recorded", newRS.Name)
	}
	if phase, _ := Verdict(d); phase != PhaseComplete || c == nil || c.Reason != NewRSAvailableReason ||
		!strings.Contains(c.Message, fmt.Sprintf("%q", newRS.Name)) {
		return estimate.Rollout{}, false, fmt.Sprintf("the rollout of %s is not complete (no Progressing condition %s naming it)", newRS.Name, NewRSAvailableReason)
	}
	took := c.LastUpdateTime.Sub(newRS.CreationTimestamp.Time)
	if took < 0 {
		return estimate.Rollout{}, false, fmt.Sprintf("the rollout of %s completed before its ReplicaSet was created (a clock skew)", newRS.Name)
	}
	return estimate.Rollout{Start: StartState(d, rss), ReplicaSet: newRS.Name, Took: took}, true, ""
}
