package planner

import (
	"container/heap"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
)

// longAgo is the ready time of a pod that is available at the start.
const longAgo = time.Duration(math.MinInt64 / 2)

// pod is one pod of the timed model: when it was created, became (or becomes) Ready and
// available, and its creation sequence number (ties of creation time: the higher is newer).
type pod struct {
	created, readyAt, availableAt time.Duration
	seq                           int
}

// podEvent is a moment a pod becomes Ready (available false) or available.
type podEvent struct {
	at        time.Duration
	available bool
	rs        *replicaSet
	seq       int
}

// eventQueue is a min-heap of pod events by time (container/heap).
type eventQueue []podEvent

func (q eventQueue) Len() int           { return len(q) }
func (q eventQueue) Less(i, j int) bool { return q[i].at < q[j].at }
func (q eventQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *eventQueue) Push(x any)        { *q = append(*q, x.(podEvent)) }
func (q *eventQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

// timedState is the clock and the pod times of a ReadinessTimed simulation.
type timedState struct {
	now        time.Duration
	readyAfter []time.Duration
	next       int           // the next index into readyAfter
	minReady   time.Duration // spec.minReadySeconds
	latency    time.Duration // Timing.SyncLatency
	seq        int           // pods created so far (existing ones included)
	alive      []bool        // by seq: the pod exists
	events     eventQueue    // the pods' future Ready and available moments
	progress   progressState
}

// takeReadyAfter returns the next ready-after value (cycling).
func (t *timedState) takeReadyAfter() time.Duration {
	d := t.readyAfter[t.next%len(t.readyAfter)]
	t.next++
	return d
}

// addPod adds p to rs: counted at once if Ready or available now, else queued.
func (t *timedState) addPod(rs *replicaSet, p pod) {
	t.alive = append(t.alive, true)
	rs.pods = append(rs.pods, p)
	if p.readyAt <= t.now {
		rs.podsReady++
	} else {
		heap.Push(&t.events, podEvent{at: p.readyAt, rs: rs, seq: p.seq})
	}
	if p.availableAt <= t.now {
		rs.podsAvailable++
	} else {
		heap.Push(&t.events, podEvent{at: p.availableAt, available: true, rs: rs, seq: p.seq})
	}
}

// validateTiming checks Input.Timing for ReadinessTimed.
func validateTiming(tm *Timing) error {
	if tm == nil || len(tm.ReadyAfter) == 0 {
		return errors.New("readiness timed needs the time pods take to become ready (--pod-ready-after DURATION, or the live Deployment's pods)")
	}
	if tm.SyncLatency < 0 {
		return fmt.Errorf("readiness timed: the sync latency %s is negative: give 0 or more", tm.SyncLatency)
	}
	for _, d := range tm.ReadyAfter {
		if d < 0 {
			return fmt.Errorf("readiness timed: a pod cannot become ready %s after it is created: ready-after must not be negative", d)
		}
	}
	return nil
}

// initTimed sets up the clock and the pods that exist at the start: status.replicas pods per
// ReplicaSet (or as many as are available, if more), the available ones Ready long ago, the
// others Ready at their Pending time or after a ReadyAfter value from the start.
func (s *simulation) initTimed(tm *Timing) {
	s.timed = &timedState{
		readyAfter: slices.Clone(tm.ReadyAfter),
		minReady:   time.Duration(s.d.Spec.MinReadySeconds) * time.Second,
		latency:    tm.SyncLatency,
		progress:   newProgressState(s.d, s.nowTime),
	}
	t := s.timed
	for _, rs := range s.rss {
		if !rs.exists {
			continue
		}
		n := max(rs.statusReplicas, rs.available)
		pending := tm.Pending[rs.name]
		for i := range n {
			p := pod{created: -1, readyAt: longAgo, availableAt: longAgo, seq: t.seq}
			t.seq++
			if i >= rs.available {
				k := int(i - rs.available)
				if k < len(pending) {
					p.readyAt = pending[k]
				} else {
					p.readyAt = t.takeReadyAfter()
				}
				p.availableAt = p.readyAt + t.minReady
			}
			t.addPod(rs, p)
		}
		// rs.ready stays status.readyReplicas as given until the ReplicaSet controller's
		// first catch-up counts the pods.
	}
}

// runTimed is run for ReadinessTimed: an event queue over time. The controller syncs until
// it writes nothing (the ReplicaSet controller creating and deleting pods at once after each
// write); then the clock moves to the next moment a pod becomes Ready or available, which
// updates the ReplicaSets' status and syncs the Deployment again. It ends when no pod
// changes any more. On the way it follows the Progressing condition and records the first
// moment the progress deadline passes.
func (s *simulation) runTimed(guard int) error {
	t := s.timed
	for {
		if s.sync >= guard {
			return ErrNoFixedPoint
		}
		s.sync++
		s.wrote, s.statusWrote = false, false
		s.syncDeployment()
		if s.podsCatchUp() || s.wrote || s.statusWrote {
			continue
		}
		next, ok := s.nextPodEvent()
		if deadline, pending := t.progress.pendingDeadline(); pending && (!ok || deadline < next) {
			if s.plan.ProgressDeadlineAt == nil {
				s.plan.ProgressDeadlineAt = &deadline
			}
			// The requeued sync after the deadline writes only the condition.
			t.progress.cond = progressCondition{set: true, status: "False", reason: reasonTimedOut, lastUpdate: deadline}
		}
		if !ok {
			return nil
		}
		t.now = next
		s.popPodEvents()
		if s.countPodStatus() {
			s.pendingWait = WaitPodsAvailable
		}
	}
}

// observeStatus follows the Deployment's status and Progressing condition at the end of a
// timed sync: the conditions getNewReplicaSet sets (created: it created the new ReplicaSet;
// found: it found an existing one it did not have to update), then syncRolloutStatus on the
// rollout path, or the status write of sync() otherwise.
func (s *simulation) observeStatus(rolloutPath, created, found bool) {
	t := s.timed
	ps := &t.progress
	switch {
	case created && ps.hasDeadline:
		ps.setCondition("True", reasonNewRS, t.now)
	case found && ps.hasDeadline && !ps.cond.set:
		ps.setCondition("True", reasonFoundNewRS, t.now)
	}
	ps.rolloutPath = rolloutPath
	cur := s.calculateStatus()
	if !rolloutPath {
		ps.stored = cur
		return
	}
	ps.syncRolloutStatus(cur, s.deploymentComplete(cur), t.now)
}

// podsCatchUp plays the ReplicaSet controller after a timed sync: every live ReplicaSet gets
// spec.replicas pods (new ones created SyncLatency from now, each Ready the next ReadyAfter
// value after its creation;
// surplus ones deleted in the ReplicaSet controller's order, getPodsToDelete), and its status
// follows. It reports whether any status changed (a ReplicaSet update event).
func (s *simulation) podsCatchUp() bool {
	t := s.timed
	changed := false
	for _, rs := range s.live() {
		if rs.statusReplicas != rs.replicas || rs.staleGeneration {
			changed = true
		}
		for n := int32(len(rs.pods)); n < rs.replicas; n++ {
			created := t.now + t.latency
			ready := created + t.takeReadyAfter()
			t.addPod(rs, pod{created: created, readyAt: ready, availableAt: ready + t.minReady, seq: t.seq})
			t.seq++
		}
		if surplus := len(rs.pods) - int(rs.replicas); surplus > 0 {
			s.deletePods(rs, surplus)
		}
		rs.statusReplicas = rs.replicas
		rs.staleGeneration = false
	}
	if s.countPodStatus() {
		changed = true
	}
	return changed
}

// deletePods removes n pods of rs in the order the ReplicaSet controller deletes them
// (ActivePodsWithRanks, pkg/controller/controller_utils.go): not Ready before Ready; among
// pods not Ready the newest first; among Ready ones the one Ready the shortest time first;
// then the newest. Pods are all Running and on a node, with no deletion cost or restarts.
// A few pods are picked one by one (a scan each), more by a sort.
func (s *simulation) deletePods(rs *replicaSet, n int) {
	t := s.timed
	before := func(a, b pod) bool { return deleteFirst(a, b, t.now) < 0 }
	if n <= 4 {
		for range n {
			worst := 0
			for i := 1; i < len(rs.pods); i++ {
				if before(rs.pods[i], rs.pods[worst]) {
					worst = i
				}
			}
			t.dropPod(rs, rs.pods[worst])
			rs.pods[worst] = rs.pods[len(rs.pods)-1]
			rs.pods = rs.pods[:len(rs.pods)-1]
		}
		return
	}
	slices.SortFunc(rs.pods, func(a, b pod) int { return deleteFirst(a, b, t.now) })
	for _, p := range rs.pods[:n] {
		t.dropPod(rs, p)
	}
	rs.pods = slices.Delete(rs.pods, 0, n)
}

// deleteFirst orders pods for deletion at now (negative: a goes first).
func deleteFirst(a, b pod, now time.Duration) int {
	aReady, bReady := a.readyAt <= now, b.readyAt <= now
	switch {
	case aReady != bReady:
		if !aReady {
			return -1
		}
		return 1
	case aReady && a.readyAt != b.readyAt:
		return cmpDesc(a.readyAt, b.readyAt)
	case a.created != b.created:
		return cmpDesc(a.created, b.created)
	}
	return b.seq - a.seq
}

// dropPod forgets a deleted pod: its counts now, and its queued events.
func (t *timedState) dropPod(rs *replicaSet, p pod) {
	t.alive[p.seq] = false
	if p.readyAt <= t.now {
		rs.podsReady--
	}
	if p.availableAt <= t.now {
		rs.podsAvailable--
	}
}

func cmpDesc(a, b time.Duration) int {
	if a > b {
		return -1
	}
	return 1
}

// countPodStatus sets every live ReplicaSet's ready and available pods (its status) from
// its pods at the current moment; it reports whether any count changed.
func (s *simulation) countPodStatus() bool {
	changed := false
	for _, rs := range s.live() {
		if rs.podsReady != rs.ready || rs.podsAvailable != rs.available {
			changed = true
		}
		rs.ready, rs.available = rs.podsReady, rs.podsAvailable
	}
	return changed
}

// nextPodEvent returns the next moment after now at which a pod of a live ReplicaSet becomes
// Ready or available (events of deleted pods and ReplicaSets are dropped on the way).
func (s *simulation) nextPodEvent() (time.Duration, bool) {
	t := s.timed
	for t.events.Len() > 0 {
		e := t.events[0]
		if t.alive[e.seq] && e.rs.exists && !e.rs.deleted {
			return e.at, true
		}
		heap.Pop(&t.events)
	}
	return 0, false
}

// popPodEvents counts the pods that become Ready or available at now.
func (s *simulation) popPodEvents() {
	t := s.timed
	for t.events.Len() > 0 && t.events[0].at <= t.now {
		e := heap.Pop(&t.events).(podEvent)
		if !t.alive[e.seq] || e.rs.deleted {
			continue
		}
		if e.available {
			e.rs.podsAvailable++
		} else {
			e.rs.podsReady++
		}
	}
}
