package planner

// rolloutRecreate is one Recreate sync: scale every old ReplicaSet to 0; once no old pod is
// left, create (or scale up) the new ReplicaSet at spec.replicas.
//
// Mirrors rolloutRecreate, pkg/controller/deployment/recreate.go, v1.36.3. The controller
// also waits for old pods that still run without a ReplicaSet counting them (podMap); the
// planner sees ReplicaSets only and takes status.replicas as the count of old pods.
func (s *simulation) rolloutRecreate() {
	scaledDown := false
	for _, rs := range s.activeOldRSs() {
		if s.scaleReplicaSet(rs, 0, false, DecisionRecreateScaleDown) {
			scaledDown = true
		}
	}
	if scaledDown {
		s.recordStatus()
		return
	}
	for _, rs := range s.oldRSs() {
		if rs.statusReplicas > 0 {
			s.recordStatus()
			return
		}
	}
	if !s.getNewReplicaSet() {
		return
	}
	s.scaleReplicaSet(s.newRS, s.replicas, false, DecisionRecreateScaleUp)
	s.cleanupInFirstSync()
	s.recordStatus()
}
