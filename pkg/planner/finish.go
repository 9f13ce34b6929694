package planner

import (
	"fmt"
	"slices"

	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/deployutil"
)

// cleanupDeployment returns the old ReplicaSets cleanupDeployment deletes now: of the old
// ReplicaSets not being deleted, the len-revisionHistoryLimit with the lowest revisions
// (ties: creation time), skipping any with pods or a generation not yet observed.
//
// Mirrors cleanupDeployment, pkg/controller/deployment/sync.go, v1.36.3.
//
// newestFirst hands the old ReplicaSets over newest first, as sync() does (scale() has sorted
// them so in place, in FindActiveOrLatest); rolloutRolling and rolloutRecreate hand them over
// oldest first. The order matters only when a revision does not parse: ReplicaSetsByRevision
// then falls back to creation time, which is not a consistent order, and the sort's result
// depends on where it starts.
func (s *simulation) cleanupDeployment(newestFirst bool) []*replicaSet {
	limit := s.d.Spec.RevisionHistoryLimit
	if limit == nil || *limit == 1<<31-1 {
		return nil
	}
	var cleanable []*replicaSet
	for _, rs := range s.oldRSs() {
		if !rs.deleting {
			cleanable = append(cleanable, rs)
		}
	}
	if newestFirst {
		slices.Reverse(cleanable)
	}
	diff := int32(len(cleanable)) - *limit
	if diff <= 0 {
		return nil
	}
	// ReplicaSetsByRevision: revision, then creation time when a revision does not parse or ties.
	slices.SortFunc(cleanable, func(a, b *replicaSet) int {
		if a.revisionErr || b.revisionErr || a.revision == b.revision {
			return cmpBefore(a, b)
		}
		if a.revision < b.revision {
			return -1
		}
		return 1
	})
	var out []*replicaSet
	for _, rs := range cleanable[:diff] {
		if rs.statusReplicas != 0 || rs.replicas != 0 || rs.staleGeneration || rs.deleting {
			continue
		}
		out = append(out, rs)
	}
	return out
}

// cleanupInFirstSync is the cleanupDeployment call at the end of rolloutRolling and
// rolloutRecreate, made in the first sync: the controller makes it when the Deployment's
// status as last written shows the rollout complete (DeploymentComplete(d, &d.Status)), which
// the planner knows for the input status only. It deletes at once what is cleanable then; a
// ReplicaSet whose status still lags (pods, observedGeneration) goes in a later sync, which
// finish forecasts. Without it the forecast would list every deletion in revision order,
// where the controller deletes the lagging ones last.
func (s *simulation) cleanupInFirstSync() {
	if s.sync != 1 || !s.completeAtStart {
		return
	}
	for _, rs := range s.cleanupDeployment(false) {
		rs.deleted = true
		s.wrote = true
		s.plan.Cleanup = append(s.plan.Cleanup, CleanupEntry{Name: rs.name, Revision: rs.revision})
	}
}

// isComplete is the controller's own verdict on the status the ReplicaSets give at the end:
// DeploymentComplete(calculateStatus(...)) (observedGeneration is current after a sync).
func (s *simulation) isComplete() bool {
	return s.deploymentComplete(s.calculateStatus())
}

// finish computes the outcome, the final state and the cleanup forecast.
func (s *simulation) finish() *Plan {
	p := s.plan
	p.Syncs = s.sync
	p.Steps = s.joinSteps()
	if s.timed != nil {
		p.Duration = s.timed.now
	}
	for _, rs := range s.rss {
		var replicas, available int32
		if rs.exists && !rs.deleted {
			replicas, available = rs.replicas, rs.available
		}
		p.Final = append(p.Final, replicas)
		p.FinalAvailable = append(p.FinalAvailable, available)
		p.ReplicaSets[rs.idx].Revision = rs.revision
	}
	complete := s.isComplete()
	switch {
	case complete && len(p.Steps) == 0:
		p.Outcome = OutcomeNoChange
	case complete:
		p.Outcome = OutcomeComplete
	case s.d.Spec.Paused:
		p.Outcome = OutcomePaused
	default:
		p.Outcome = OutcomeStalled
		p.StalledReason = s.stalledReason()
	}
	// cleanupDeployment runs at the end of rolloutRolling/rolloutRecreate only: while an
	// active ReplicaSet's desired-replicas annotation differs from spec.replicas, every sync
	// is a scaling event that goes through sync() instead, and scale() leaves a lone active
	// ReplicaSet of the right size (and its stale annotation) alone, so nothing is deleted.
	if complete && !s.d.Spec.Paused && !s.isScalingEvent() {
		for _, rs := range s.cleanupDeployment(false) {
			p.Cleanup = append(p.Cleanup, CleanupEntry{Name: rs.name, Revision: rs.revision})
		}
	}
	s.markRollbackTarget()
	if !s.newRS.exists {
		s.nameUncreatedNewRS()
		s.dropUncreatedNewRS()
	}
	return p
}

// markRollbackTarget flags the cleanup entry with the highest old revision: the one
// `kubectl rollout undo` would return to after this rollout.
func (s *simulation) markRollbackTarget() {
	var target int64 = -1
	for _, rs := range s.oldRSs() {
		if rs.revision > target {
			target = rs.revision
		}
	}
	for i := range s.plan.Cleanup {
		if s.plan.Cleanup[i].Revision == target {
			s.plan.Cleanup[i].RollbackTarget = true
		}
	}
}

// dropUncreatedNewRS removes the new ReplicaSet from the plan when the controller never
// creates it (a paused Deployment, or a plan that ends before).
func (s *simulation) dropUncreatedNewRS() {
	p := s.plan
	i := s.newRS.idx
	p.ReplicaSets = slices.Delete(p.ReplicaSets, i, i+1)
	p.Initial = slices.Delete(p.Initial, i, i+1)
	p.InitialAvailable = slices.Delete(p.InitialAvailable, i, i+1)
	p.Final = slices.Delete(p.Final, i, i+1)
	p.FinalAvailable = slices.Delete(p.FinalAvailable, i, i+1)
	for k := range p.Steps {
		st := &p.Steps[k]
		st.Replicas = slices.Delete(slices.Clone(st.Replicas), i, i+1)
		if st.ReplicaSet > i {
			st.ReplicaSet--
		}
	}
}

// stalledReason says what the controller waits for at the end of a stalled plan.
func (s *simulation) stalledReason() string {
	if st := s.calculateStatus(); st.updated == s.replicas && st.replicas == s.replicas {
		// Every pod is an updated one and no other is left: DeploymentComplete waits only for
		// availability, whatever path the syncs take (a stale desired-replicas annotation
		// sends them through sync(), whose status write counts the same pods).
		return fmt.Sprintf("%d of %d pods are not available under this readiness model; the controller has nothing more to write: "+
			"the rollout is complete as soon as they are", s.replicas-st.available, s.replicas)
	}
	if !s.d.Spec.Paused {
		for _, rs := range s.live() {
			if desired, ok := rs.desiredReplicas(); ok && rs.replicas > 0 && desired != s.replicas {
				return fmt.Sprintf("every sync is a scaling event: ReplicaSet %s carries %s=%d while spec.replicas is %d, "+
					"and proportional scaling leaves the ReplicaSets as they are, so the rollout never proceeds; "+
					"fixing or removing that annotation (or scaling the Deployment) unblocks it",
					rs.name, deployutil.DesiredReplicasAnnotation, desired, s.replicas)
			}
		}
	}
	newRS := s.existingNewRS()
	if newRS == nil {
		return "the new ReplicaSet is never created"
	}
	var unavailable int32
	for _, rs := range s.live() {
		unavailable += rs.replicas - rs.available
	}
	msg := fmt.Sprintf("%d of %d pods are not available", unavailable, replicaCount(s.live()))
	if s.st.Type == "RollingUpdate" {
		msg += fmt.Sprintf("; the controller scales further only when more than %d pods (minAvailable) are available", s.replicas-s.st.MaxUnavailable)
	}
	if pds := s.d.Spec.ProgressDeadlineSeconds; pds != nil && *pds != 1<<31-1 {
		msg += fmt.Sprintf("; %ds (progressDeadlineSeconds) after the last progress the controller sets Progressing=False with reason ProgressDeadlineExceeded", *pds)
	}
	return msg
}

// nameUncreatedNewRS names a new ReplicaSet the plan never creates (a paused Deployment) as
// the controller will once it does: against the ReplicaSets left at the end, since a paused
// cleanupDeployment may have deleted the ReplicaSet whose name the hash collided with.
func (s *simulation) nameUncreatedNewRS() {
	cc := s.startCollisionCount
	for {
		hash := ComputeHash(&s.d.Spec.Template, cc)
		name := ReplicaSetName(s.d.Name, hash)
		if rs := s.find(name); rs == nil || rs == s.newRS || rs.deleted {
			s.newRS.name = name
			s.plan.NewReplicaSet.Name, s.plan.NewReplicaSet.PodTemplateHash, s.plan.NewReplicaSet.CollisionCount = name, hash, cc
			return
		}
		next := ptr.Deref(cc, 0) + 1
		cc = &next
	}
}
