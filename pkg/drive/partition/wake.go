package partition

import "time"

// WakeAt is the earliest instant after s.Now at which Next may decide otherwise without any
// change to the StatefulSet or its pods (pure): a Ready pod at or above the partition that
// becomes available (ReadySince + minReadySeconds) or the step's progress deadline
// (StepStarted + c.ProgressDeadline) while a pod is still waited for. Zero when only a
// change can move the walk (the caller waits for its watch, or its resync).
//
// Example: minReadySeconds 10, pod 2 Ready since 12:00:03, now 12:00:05 -> 12:00:13.
func WakeAt(s State, c Config) time.Time {
	var at time.Time
	earlier := func(t time.Time) {
		if t.After(s.Now) && (at.IsZero() || t.Before(at)) {
			at = t
		}
	}
	p := min(max(s.Partition, 0), s.Replicas)
	waiting := false
	for _, pod := range s.Pods {
		if pod.Ordinal < p || pod.Ordinal >= s.Replicas {
			continue
		}
		if pod.Revision != s.UpdateRevision || !available(pod, s.MinReadySeconds, s.Now) {
			waiting = true
		}
		if !pod.ReadySince.IsZero() && s.MinReadySeconds > 0 {
			earlier(pod.ReadySince.Add(time.Duration(s.MinReadySeconds) * time.Second))
		}
	}
	if int32(len(s.Pods)) < s.Replicas-p {
		waiting = true // a pod not created yet
	}
	if waiting && c.ProgressDeadline > 0 && !s.StepStarted.IsZero() {
		// Next holds once Now - StepStarted exceeds the deadline: a nanosecond after it.
		earlier(s.StepStarted.Add(c.ProgressDeadline + time.Nanosecond))
	}
	return at
}
