package planner

import (
	"slices"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/utils/integer"
)

// run simulates syncs until the controller settles under the readiness model.
func (s *simulation) run() error {
	guard := s.maxSyncs
	if guard <= 0 {
		var pods int64
		for _, rs := range s.rss {
			pods += int64(rs.replicas)
		}
		guard = int(8*(pods+int64(s.replicas)+int64(s.st.MaxSurge))) + 1000
	}
	if s.timed != nil {
		// Every pod change is a sync of its own: up to two per pod (Ready, available).
		return s.runTimed(3*guard + 1000)
	}
	for {
		if s.sync >= guard {
			return ErrNoFixedPoint
		}
		s.sync++
		s.wrote, s.statusWrote = false, false
		s.syncDeployment()
		// A status the ReplicaSet controller changes is a ReplicaSet update event: the
		// Deployment is synced again even after a sync that wrote nothing.
		more := s.replicaSetControllerCatchesUp() || s.wrote || s.statusWrote
		switch s.readiness {
		case ReadinessInstant:
			if s.wrote {
				s.makeAllAvailable()
			}
		case ReadinessBatched:
			if !more {
				more = s.makeAllAvailable()
			}
		}
		if !more {
			return nil
		}
	}
}

// replicaSetControllerCatchesUp plays the ReplicaSet controller after a sync: pods are
// created and deleted at once (status.replicas follows spec.replicas), and a scale-down
// deletes unavailable pods first.
func (s *simulation) replicaSetControllerCatchesUp() bool {
	changed := false
	for _, rs := range s.live() {
		if rs.statusReplicas != rs.replicas || rs.available > rs.replicas || rs.staleGeneration {
			changed = true
		}
		rs.statusReplicas = rs.replicas
		rs.available = min(rs.available, rs.replicas)
		rs.staleGeneration = false
	}
	return changed
}

// makeAllAvailable makes every pod available; it reports whether anything changed.
func (s *simulation) makeAllAvailable() bool {
	caps := s.podCaps()
	changed := false
	for _, rs := range s.live() {
		want := rs.replicas
		if caps != nil {
			want = max(rs.available, min(rs.replicas, caps[rs.idx]))
		}
		if rs.available != want {
			rs.available = want
			changed = true
		}
	}
	if changed {
		s.pendingWait = WaitPodsAvailable
	}
	return changed
}

// podCaps asks Input.PodCap how many pods of each ReplicaSet can be available (indexed like
// s.rss); nil without a cap.
func (s *simulation) podCaps() []int32 {
	if s.podCap == nil {
		return nil
	}
	names := make([]string, len(s.rss))
	replicas := make([]int32, len(s.rss))
	for i, rs := range s.rss {
		names[i] = rs.name
		if rs.exists && !rs.deleted {
			replicas[i] = rs.replicas
		}
	}
	caps := s.podCap(names, replicas)
	if len(caps) != len(s.rss) {
		return nil
	}
	return caps
}

// live returns the ReplicaSets that exist now, in creation order. It allocates nothing.
func (s *simulation) live() []*replicaSet {
	n := 0
	for _, rs := range s.rss {
		if rs.exists && !rs.deleted {
			n++
		}
	}
	if n == len(s.rss) {
		return s.rss
	}
	out := make([]*replicaSet, 0, n)
	for _, rs := range s.rss {
		if rs.exists && !rs.deleted {
			out = append(out, rs)
		}
	}
	return out
}

// oldRSs returns the existing old ReplicaSets in creation order (FindOldReplicaSets' second
// result, all of them, with or without pods).
func (s *simulation) oldRSs() []*replicaSet {
	var out []*replicaSet
	for _, rs := range s.rss {
		if rs.exists && !rs.deleted && !rs.isNew {
			out = append(out, rs)
		}
	}
	return out
}

// existingNewRS returns the new ReplicaSet if it exists.
func (s *simulation) existingNewRS() *replicaSet {
	if s.newRS.exists && !s.newRS.deleted {
		return s.newRS
	}
	return nil
}

// activeOldRSs returns the old ReplicaSets with replicas, in creation order
// (FilterActiveReplicaSets(oldRSs)), in a buffer that the next call reuses: the caller must be
// done with the slice before calling it again. It runs once per rolling sync and allocates
// nothing once the buffer has grown.
func (s *simulation) activeOldRSs() []*replicaSet {
	s.activeBuf = s.activeBuf[:0]
	for _, rs := range s.rss {
		if rs.exists && !rs.deleted && !rs.isNew && rs.replicas > 0 {
			s.activeBuf = append(s.activeBuf, rs)
		}
	}
	return s.activeBuf
}

func filterActive(rss []*replicaSet) []*replicaSet {
	var out []*replicaSet
	for _, rs := range rss {
		if rs != nil && rs.replicas > 0 {
			out = append(out, rs)
		}
	}
	return out
}

func replicaCount(rss []*replicaSet) int32 {
	var n int32
	for _, rs := range rss {
		if rs != nil {
			n += rs.replicas
		}
	}
	return n
}

func availableCount(rss []*replicaSet) int32 {
	var n int32
	for _, rs := range rss {
		if rs != nil {
			n += rs.available
		}
	}
	return n
}

// syncDeployment is one controller sync.
//
// Mirrors DeploymentController.syncDeployment, deployment_controller.go, v1.36.3: paused ->
// sync(); scaling event -> sync(); else rolloutRecreate or rolloutRolling.
func (s *simulation) syncDeployment() {
	// Every path starts with getAllReplicaSetsAndSyncRevision, which updates an existing new
	// ReplicaSet's annotations (a write, not a step).
	found := s.existingNewRS() != nil
	if s.annotationSync && found {
		s.annotationSync = false
		s.newRS.revision = s.plan.NewReplicaSet.Revision
		s.wrote = true
		found = false
	}
	if s.timed != nil {
		s.timed.progress.checkPausedConditions(s.d.Spec.Paused, s.timed.now)
	}
	if s.d.Spec.Paused || s.isScalingEvent() {
		s.syncScale()
		if s.timed != nil {
			s.observeStatus(false, false, found)
		}
		return
	}
	s.createdNow, s.collided = false, false
	if s.st.Type == appsv1.RecreateDeploymentStrategyType {
		s.rolloutRecreate()
	} else {
		s.rolloutRolling()
	}
	// A hash collision ends the sync with an error, before syncRolloutStatus.
	if s.timed != nil && !s.collided {
		s.observeStatus(true, s.createdNow, found)
	}
}

// isScalingEvent: some active ReplicaSet's desired-replicas annotation differs from
// spec.replicas. Mirrors isScalingEvent, sync.go.
func (s *simulation) isScalingEvent() bool {
	for _, rs := range s.live() {
		// desiredStr is spec.replicas as the controller writes it: an annotation equal to it
		// parses to spec.replicas (the common case, checked without parsing on every sync).
		if rs.replicas == 0 || rs.desiredAnn == s.desiredStr {
			continue
		}
		if desired, ok := rs.desiredReplicas(); ok && desired != s.replicas {
			return true
		}
	}
	return false
}

// syncScale is sync(): proportional scaling, and cleanup while paused. Mirrors sync, sync.go.
//
// cleanupDeployment is handed the old ReplicaSets as they were before scale() wrote them, so
// it decides on the sizes at the start of the sync: a paused Deployment with
// revisionHistoryLimit 0 whose only ReplicaSet is an old one at 0 replicas has it scaled up
// to spec.replicas by scale() and then deleted in the same sync.
func (s *simulation) syncScale() {
	var cleanup []*replicaSet
	if s.d.Spec.Paused {
		cleanup = s.cleanupDeployment(true)
	}
	s.scale()
	if s.d.Spec.Paused {
		for _, rs := range cleanup {
			rs.deleted = true
			s.wrote = true
			s.plan.Cleanup = append(s.plan.Cleanup, CleanupEntry{Name: rs.name, Revision: rs.revision})
		}
	}
	s.recordStatus()
}

// recordStatus is the Deployment status update at the end of a sync, as far as the planner
// reads it: status.replicas (the fallback of the proportion estimate).
func (s *simulation) recordStatus() {
	var n int32
	for _, rs := range s.live() {
		n += rs.statusReplicas
	}
	s.d.Status.Replicas = n
}

// scale mirrors DeploymentController.scale, sync.go:307-401.
func (s *simulation) scale() {
	newRS := s.existingNewRS()
	oldRSs := s.oldRSs()
	// FindActiveOrLatest sorts the old ReplicaSets newest first, in place.
	slices.Reverse(oldRSs)
	if activeOrLatest := findActiveOrLatest(newRS, oldRSs); activeOrLatest != nil {
		if activeOrLatest.replicas == s.replicas {
			return
		}
		s.scaleReplicaSet(activeOrLatest, s.replicas, false, DecisionScaleActiveOrLatest)
		return
	}
	if s.isSaturated(newRS) {
		for _, old := range filterActive(oldRSs) {
			s.scaleReplicaSet(old, 0, false, DecisionScaleDownSaturated)
		}
		return
	}
	if s.st.Type != appsv1.RollingUpdateDeploymentStrategyType {
		return
	}
	allRSs := filterActive(append(oldRSs, newRS))
	allowedSize := int32(0)
	if s.replicas > 0 {
		allowedSize = s.replicas + s.st.MaxSurge
	}
	toAdd := allowedSize - replicaCount(allRSs)
	switch {
	case toAdd > 0:
		// ReplicaSetsBySizeNewer: larger first, newer first among equals.
		slices.SortFunc(allRSs, func(a, b *replicaSet) int {
			if a.replicas != b.replicas {
				return int(b.replicas) - int(a.replicas)
			}
			return cmpBefore(b, a)
		})
	case toAdd < 0:
		// ReplicaSetsBySizeOlder: larger first, older first among equals.
		slices.SortFunc(allRSs, func(a, b *replicaSet) int {
			if a.replicas != b.replicas {
				return int(b.replicas) - int(a.replicas)
			}
			return cmpBefore(a, b)
		})
	}
	added := int32(0)
	sizes := make([]int32, len(allRSs))
	for i, rs := range allRSs {
		sizes[i] = rs.replicas
		if toAdd != 0 {
			proportion := s.replicaSetProportion(rs, toAdd, added)
			sizes[i] += proportion
			added += proportion
		}
	}
	for i, rs := range allRSs {
		if i == 0 && toAdd != 0 {
			sizes[i] = max(sizes[i]+toAdd-added, 0)
		}
		s.scaleReplicaSet(rs, sizes[i], true, DecisionProportional)
	}
}

// findActiveOrLatest mirrors deploymentutil.FindActiveOrLatest; oldRSs is newest first.
func findActiveOrLatest(newRS *replicaSet, oldRSs []*replicaSet) *replicaSet {
	if newRS == nil && len(oldRSs) == 0 {
		return nil
	}
	active := filterActive(append(slices.Clip(oldRSs), newRS))
	switch len(active) {
	case 0:
		if newRS != nil {
			return newRS
		}
		return oldRSs[0]
	case 1:
		return active[0]
	}
	return nil
}

// isSaturated mirrors deploymentutil.IsSaturated.
func (s *simulation) isSaturated(rs *replicaSet) bool {
	if rs == nil {
		return false
	}
	desired, err := strconv.Atoi(rs.desiredAnn)
	if err != nil {
		return false
	}
	return rs.replicas == s.replicas && int32(desired) == s.replicas && rs.available == s.replicas
}

// replicaSetProportion mirrors deploymentutil.GetReplicaSetProportion.
func (s *simulation) replicaSetProportion(rs *replicaSet, toAdd, added int32) int32 {
	if rs == nil || rs.replicas == 0 || toAdd == 0 || toAdd == added {
		return 0
	}
	fraction := s.replicaSetFraction(rs)
	allowed := toAdd - added
	if toAdd > 0 {
		return min(fraction, allowed)
	}
	return max(fraction, allowed)
}

// replicaSetFraction mirrors deploymentutil.getReplicaSetFraction, including its int32
// arithmetic: newRSsize = round(replicas * (spec.replicas + maxSurge) / max-replicas).
func (s *simulation) replicaSetFraction(rs *replicaSet) int32 {
	if s.replicas == 0 {
		return -rs.replicas
	}
	deploymentMaxReplicas := s.replicas + s.st.MaxSurge
	before, ok := rs.maxReplicas()
	if !ok || before == 0 {
		before = s.d.Status.Replicas
		if before == 0 {
			return 0
		}
	}
	newRSsize := float64(rs.replicas*deploymentMaxReplicas) / float64(before)
	return integer.RoundToInt32(newRSsize) - rs.replicas
}

// scaleReplicaSet mirrors DeploymentController.scaleReplicaSet: it writes when the size
// changes, or (forceUpdate) when the replicas annotations are out of date. A write that
// changes the size is a Step.
func (s *simulation) scaleReplicaSet(rs *replicaSet, newScale int32, forceUpdate bool, why Decision) bool {
	if !forceUpdate && rs.replicas == newScale {
		return false
	}
	sizeNeedsUpdate := rs.replicas != newScale
	annotationsNeedUpdate := rs.noAnnotations || rs.desiredAnn != s.desiredStr || rs.maxAnn != s.maxStr
	if !sizeNeedsUpdate && !annotationsNeedUpdate {
		return false
	}
	from := rs.replicas
	rs.replicas = newScale
	rs.desiredAnn, rs.maxAnn, rs.noAnnotations = s.desiredStr, s.maxStr, false
	rs.staleGeneration = false
	s.wrote = true
	if sizeNeedsUpdate {
		s.addStep(rs, from, newScale, false, why)
	}
	return sizeNeedsUpdate
}

// addStep records one replica write.
func (s *simulation) addStep(rs *replicaSet, from, to int32, create bool, why Decision) {
	n := len(s.rss)
	if len(s.slab) < n {
		s.slab = make([]int32, n*1024)
	}
	replicas := s.slab[:n:n]
	s.slab = s.slab[n:]
	var total int32
	for i, r := range s.rss {
		if r.exists && !r.deleted {
			replicas[i] = r.replicas
			total += r.replicas
		}
	}
	wait := s.pendingWait
	if why == DecisionCreateNewRS || why == DecisionRecreateScaleUp {
		if s.st.Type == appsv1.RecreateDeploymentStrategyType && s.oldPodsAtStartOrScaled() {
			wait = WaitOldPodsTerminated
		}
	}
	s.pendingWait = WaitNone
	if why == DecisionRecreateScaleDown {
		s.recreateScaledDown = true
	}
	s.appendStep(Step{
		ReplicaSet: rs.idx,
		From:       from,
		To:         to,
		Create:     create,
		Decision:   why,
		Wait:       wait,
		Sync:       s.sync,
		At:         s.now(),
		Replicas:   replicas,
		Total:      total,
		Available:  s.availableAfterWrite(),
	})
}

func (s *simulation) oldPodsAtStartOrScaled() bool {
	return s.oldPodsAtStart || s.recreateScaledDown
}

// stepChunkMax bounds the steps of one chunk (6 MiB of Steps).
const stepChunkMax = 1 << 16

// appendStep stores a step in chunks that double in size up to stepChunkMax; finish joins
// them once (joinSteps). Appending to one slice grows a large slice by 1.25x at a time,
// which allocates and copies about five times the final plan in all (100,000 replicas,
// surge 1: 105 MB for 19 MB of steps); chunks allocate it twice and copy it once.
func (s *simulation) appendStep(st Step) {
	if len(s.steps) == cap(s.steps) {
		if s.steps != nil {
			s.stepChunks = append(s.stepChunks, s.steps)
		}
		s.steps = make([]Step, 0, min(max(2*cap(s.steps), 64), stepChunkMax))
	}
	s.steps = append(s.steps, st)
	s.nSteps++
}

// joinSteps returns every step in order, in one slice.
func (s *simulation) joinSteps() []Step {
	if len(s.stepChunks) == 0 {
		return s.steps
	}
	out := make([]Step, 0, s.nSteps)
	for _, c := range s.stepChunks {
		out = append(out, c...)
	}
	return append(out, s.steps...)
}

// availableAfterWrite counts the available pods once the ReplicaSet controller has acted on
// the write: a scale-down removes unavailable pods first, so each ReplicaSet keeps
// min(available, replicas).
func (s *simulation) availableAfterWrite() int32 {
	var n int32
	for _, rs := range s.live() {
		n += min(rs.available, rs.replicas)
	}
	return n
}
