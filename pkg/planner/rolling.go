package planner

import (
	"k8s.io/apimachinery/pkg/util/intstr"
)

// rolloutRolling is one RollingUpdate sync: create the new ReplicaSet if needed, then one
// scale-up of it or one round of old scale-downs.
//
// Example, 10 replicas, 25%/25% (maxSurge 3, maxUnavailable 2), nothing new ready: sync 1
// creates new at 3 (10+3-10) and scales old 10->8 (13-8-0 = 5 may go, bounded by
// 10 available - 8 minAvailable = 2); sync 2 scales new 3->5; then it waits.
//
// Mirrors rolloutRolling, pkg/controller/deployment/rolling.go, v1.36.3.
func (s *simulation) rolloutRolling() {
	if !s.getNewReplicaSet() {
		return
	}
	if s.reconcileNewReplicaSet() {
		s.recordStatus()
		return
	}
	if s.reconcileOldReplicaSets() {
		s.recordStatus()
		return
	}
	s.cleanupInFirstSync()
	s.recordStatus()
}

// getNewReplicaSet creates the new ReplicaSet if it does not exist, with NewRSNewReplicas
// pods, as the create branch of getNewReplicaSet (sync.go) does. It returns false when the
// sync ends there (a hash collision: the controller bumps status.collisionCount and requeues).
func (s *simulation) getNewReplicaSet() bool {
	if s.existingNewRS() != nil {
		return true
	}
	if s.collisionSyncs > 0 {
		s.collided = true
		s.collisionSyncs--
		s.statusWrote = true // the status write of the collision count; pods are not made available
		return false
	}
	rs := s.newRS
	rs.exists = true
	rs.replicas = 0
	rs.replicas = s.newRSNewReplicas()
	rs.desiredAnn, rs.maxAnn, rs.noAnnotations = s.desiredStr, s.maxStr, false
	s.plan.NewReplicaSet.Created = true
	s.createdNow = true
	s.wrote = true
	s.addStep(rs, 0, rs.replicas, true, DecisionCreateNewRS)
	return true
}

// newRSNewReplicas mirrors deploymentutil.NewRSNewReplicas: for RollingUpdate, grow the new
// ReplicaSet up to spec.replicas+maxSurge pods in all, never past spec.replicas; for
// Recreate, spec.replicas.
func (s *simulation) newRSNewReplicas() int32 {
	if s.st.Type != "RollingUpdate" {
		return s.replicas
	}
	maxSurge, _ := intstr.GetScaledValueFromIntOrPercent(s.d.Spec.Strategy.RollingUpdate.MaxSurge, int(s.replicas), true)
	currentPodCount := replicaCount(s.live())
	maxTotalPods := s.replicas + int32(maxSurge)
	if currentPodCount >= maxTotalPods {
		return s.newRS.replicas
	}
	scaleUpCount := min(maxTotalPods-currentPodCount, s.replicas-s.newRS.replicas)
	return s.newRS.replicas + scaleUpCount
}

// reconcileNewReplicaSet mirrors rolling.go's reconcileNewReplicaSet: scale a new
// ReplicaSet above spec.replicas down, or up by NewRSNewReplicas. It reports a scale.
func (s *simulation) reconcileNewReplicaSet() bool {
	newRS := s.newRS
	switch {
	case newRS.replicas == s.replicas:
		return false
	case newRS.replicas > s.replicas:
		return s.scaleReplicaSet(newRS, s.replicas, false, DecisionScaleDownNewRS)
	}
	return s.scaleReplicaSet(newRS, s.newRSNewReplicas(), false, DecisionScaleUpNewRS)
}

// reconcileOldReplicaSets mirrors rolling.go's reconcileOldReplicaSets:
//
//	maxScaledDown = allPods - minAvailable - newRSUnavailable
//
// Unhealthy old replicas go first (cleanupUnhealthyReplicas), then old ReplicaSets oldest
// first, bounded by available pods - minAvailable. It reports a scale-down.
func (s *simulation) reconcileOldReplicaSets() bool {
	oldRSs := s.activeOldRSs()
	if replicaCount(oldRSs) == 0 {
		return false
	}
	allPodsCount := replicaCount(oldRSs) + s.newRS.replicas
	// allRSs in the controller also holds the old ReplicaSets without pods; they add nothing.
	minAvailable := s.replicas - s.st.MaxUnavailable
	newRSUnavailablePodCount := s.newRS.replicas - s.newRS.available
	maxScaledDown := allPodsCount - minAvailable - newRSUnavailablePodCount
	if maxScaledDown <= 0 {
		return false
	}
	cleanupCount, ok := s.cleanupUnhealthyReplicas(oldRSs, maxScaledDown)
	if !ok {
		return false
	}
	scaledDownCount, ok := s.scaleDownOldReplicaSetsForRollingUpdate(oldRSs, minAvailable)
	if !ok {
		return false
	}
	return cleanupCount+scaledDownCount > 0
}

// cleanupUnhealthyReplicas mirrors rolling.go: old ReplicaSets oldest first lose their
// unavailable replicas, up to maxCleanupCount in all. It returns false where the controller
// returns an error (a ReplicaSet whose status shows more available pods than its spec).
func (s *simulation) cleanupUnhealthyReplicas(oldRSs []*replicaSet, maxCleanupCount int32) (int32, bool) {
	total := int32(0)
	for _, rs := range oldRSs {
		if total >= maxCleanupCount {
			break
		}
		if rs.replicas == 0 || rs.replicas == rs.available {
			continue
		}
		scaledDownCount := min(maxCleanupCount-total, rs.replicas-rs.available)
		newReplicasCount := rs.replicas - scaledDownCount
		if newReplicasCount > rs.replicas {
			return 0, false
		}
		s.scaleReplicaSet(rs, newReplicasCount, false, DecisionCleanupUnhealthy)
		total += scaledDownCount
	}
	return total, true
}

// scaleDownOldReplicaSetsForRollingUpdate mirrors rolling.go: with available pods (of the
// active old and the new ReplicaSets) above minAvailable, scale old ReplicaSets down,
// oldest first, by the excess in all.
func (s *simulation) scaleDownOldReplicaSetsForRollingUpdate(oldRSs []*replicaSet, minAvailable int32) (int32, bool) {
	availablePodCount := availableCount(oldRSs) + s.newRS.available
	if availablePodCount <= minAvailable {
		return 0, true
	}
	total := int32(0)
	totalScaleDownCount := availablePodCount - minAvailable
	for _, rs := range oldRSs {
		if total >= totalScaleDownCount {
			break
		}
		if rs.replicas == 0 {
			continue
		}
		scaleDownCount := min(rs.replicas, totalScaleDownCount-total)
		newReplicasCount := rs.replicas - scaleDownCount
		if newReplicasCount > rs.replicas {
			return total, false
		}
		s.scaleReplicaSet(rs, newReplicasCount, false, DecisionScaleDownOldRS)
		total += scaleDownCount
	}
	return total, true
}
