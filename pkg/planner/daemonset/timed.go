package daemonset

import (
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// clock is the timed model's state (Readiness timed): the time since Input.Now, and when
// the last pod of the update revision became available.
type clock struct {
	now, lastAvailable time.Duration
}

// startClock gives an existing pod its times under the timed model, from base (Input.Now):
// a Ready pod not yet available is available minReadySeconds after its Ready condition
// turned True; a pod not Ready is Ready ReadyAfter after its creation (a zero
// creationTimestamp counts as base), available minReadySeconds after that. Times before base
// are 0 (the pod is Ready, or available, after the first sync).
func (s *state) startClock(p *corev1.Pod, sp *pod) {
	base := s.in.Now.Time
	minReady := secondsOf(s.ds.Spec.MinReadySeconds)
	switch {
	case sp.available, sp.terminal():
	case sp.ready:
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady {
				sp.availableAt = max(c.LastTransitionTime.Add(minReady).Sub(base), 0)
			}
		}
	default:
		created := p.CreationTimestamp.Time
		if created.IsZero() {
			created = base
		}
		at := created.Add(s.in.ReadyAfter).Sub(base)
		sp.readyAt, sp.availableAt = max(at, 0), max(at+minReady, 0)
	}
}

// settleTimed plays the timed model after a sync: a sync that wrote moves the clock by
// SyncLatency; pods whose times have come become Ready and available; when the sync wrote
// nothing and no pod changed, the clock moves to the next pod becoming Ready or available.
// False when there is no such moment (the run ends).
func (s *state) settleTimed(wrote bool) bool {
	if wrote {
		s.clock.now += s.in.SyncLatency
	}
	if s.tick() || wrote {
		return true
	}
	next, ok := s.nextEvent()
	if !ok {
		return false
	}
	s.clock.now = next
	s.tick()
	return true
}

// tick makes the pods whose Ready or available time has come Ready or available, and
// reports whether one changed.
func (s *state) tick() (changed bool) {
	for _, p := range s.pods {
		if p.terminal() {
			continue
		}
		if !p.ready && p.readyAt <= s.clock.now {
			p.ready, changed = true, true
		}
		if p.ready && !p.available && p.availableAt <= s.clock.now {
			p.available, changed = true, true
			if s.updated(p) {
				s.clock.lastAvailable = max(s.clock.lastAvailable, p.availableAt)
			}
		}
	}
	return changed
}

// nextEvent is the next moment after now a pod becomes Ready or available.
func (s *state) nextEvent() (time.Duration, bool) {
	var at []time.Duration
	for _, p := range s.pods {
		switch {
		case p.terminal(), p.available:
		case !p.ready:
			at = append(at, p.readyAt)
		default:
			at = append(at, p.availableAt)
		}
	}
	at = slices.DeleteFunc(at, func(d time.Duration) bool { return d <= s.clock.now })
	if len(at) == 0 {
		return 0, false
	}
	return slices.Min(at), true
}

// duration is Plan.Duration for a run that ended with outcome o: when the last pod of the
// update revision became available (Complete, NoChange); none under OnDelete's
// WaitingForDelete (the rollout waits for someone); else the clock at the end.
func (s *state) duration(o Outcome) time.Duration {
	switch o {
	case OutcomeComplete, OutcomeNoChange:
		return s.clock.lastAvailable
	case OutcomeWaitingForDelete:
		return 0
	}
	return s.clock.now
}
