package status

import (
	"fmt"
	"math"
	"time"

	appsv1 "k8s.io/api/apps/v1"
)

// deadline sets LastProgressAt, DeadlineAt and Warning from the Progressing condition.
//
// The controller reports ProgressDeadlineExceeded once progressDeadlineSeconds passed after
// the condition's lastUpdateTime (the last progress) without the rollout being complete;
// not while paused, and never when the deadline is unset (math.MaxInt32). Mirrors
// DeploymentTimedOut, pkg/controller/deployment/util/deployment_util.go, v1.36.3. The
// warning comes once a fraction opts.WarnAfter of the deadline passed without progress.
func (s *Status) deadline(d *appsv1.Deployment, opts Options) {
	c := progressing(d)
	if c == nil {
		return
	}
	s.LastProgressAt = c.LastUpdateTime.Time
	if s.Phase == PhaseFailed {
		s.Warning = fmt.Sprintf("the controller reported ProgressDeadlineExceeded at %s: %s",
			c.LastUpdateTime.UTC().Format(time.RFC3339), c.Message)
		return
	}
	pds := d.Spec.ProgressDeadlineSeconds
	if s.Phase == PhaseComplete || d.Spec.Paused || s.HeldBy != "" || pds == nil || *pds == math.MaxInt32 ||
		c.Reason == NewRSAvailableReason {
		return
	}
	limit := time.Duration(*pds) * time.Second
	s.DeadlineAt = s.LastProgressAt.Add(limit)
	frac := opts.WarnAfter
	if frac <= 0 {
		frac = DefaultWarnAfter
	}
	idle := durationSince(s.LastProgressAt, s.At)
	left := s.DeadlineAt.Sub(s.At)
	switch {
	case left <= 0:
		s.Warning = fmt.Sprintf("no progress for %s: progressDeadlineSeconds (%d) has passed; the controller reports ProgressDeadlineExceeded at its next sync",
			round(idle), *pds)
	case float64(idle) >= frac*float64(limit):
		s.Warning = fmt.Sprintf("no progress for %s of progressDeadlineSeconds %d: the controller reports ProgressDeadlineExceeded in %s unless more pods become available",
			round(idle), *pds, round(left))
	}
}

// round rounds a duration to the second (to the millisecond below one second).
func round(d time.Duration) time.Duration {
	if d < time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(time.Second)
}
