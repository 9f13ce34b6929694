package partition

import (
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"
)

// Action is what the drive does next.
type Action string

const (
	// ActionSetPartition: write spec.updateStrategy.rollingUpdate.partition = Decision.Partition.
	ActionSetPartition Action = "SetPartition"
	// ActionWait: the current step's pods are not all replaced and available yet; wait.
	ActionWait Action = "Wait"
	// ActionPause: stopped after a --pause-after ordinal (a canary); resume lowers on.
	ActionPause Action = "Pause"
	// ActionHold: stopped on a failure; the StatefulSet stays at the partition (exit code 4).
	ActionHold Action = "Hold"
	// ActionDone: partition 0 and every pod on the update revision and available.
	ActionDone Action = "Done"
)

// Pod is one pod of the StatefulSet as the drive sees it.
type Pod struct {
	Ordinal  int32
	Revision string // the pod's controller-revision-hash label value (a ControllerRevision name)
	// ReadySince is when the pod's Ready condition last turned true; zero if not Ready.
	ReadySince time.Time
	// Failed: phase Failed, or a container the drive judged broken (e.g. CrashLoopBackOff).
	Failed bool
}

// State is the StatefulSet at one instant.
type State struct {
	Replicas        int32
	Partition       int32 // spec.updateStrategy.rollingUpdate.partition as stored
	UpdateRevision  string
	MinReadySeconds int32
	Pods            []Pod
	Now             time.Time
	// StepStarted is when the partition was last lowered (the progress clock's start).
	StepStarted time.Time
	// Resumed: the user asked to go on past a pause at the current partition.
	Resumed bool
}

// Config is the walk the user asked for.
type Config struct {
	Step             intstr.IntOrString // pods per step, or a percentage of replicas (rounded up, at least 1)
	PauseAfter       []int32            // ordinals after whose replacement the walk pauses
	ProgressDeadline time.Duration      // how long a step may take before the walk holds
}

// Decision is the next thing to do; Partition is the value to write for ActionSetPartition
// and the current partition otherwise; Reason says why in one line.
type Decision struct {
	Action    Action
	Partition int32
	Reason    string
}

// StepSize is the number of pods per step: Step scaled against replicas, rounded up, at
// least 1. Errors on a malformed percentage.
func StepSize(step intstr.IntOrString, replicas int32) (int32, error) {
	n, err := intstr.GetScaledValueFromIntOrPercent(&step, int(replicas), true)
	if err != nil {
		return 0, fmt.Errorf("--step %s: %w", step.String(), err)
	}
	if n < 0 {
		return 0, fmt.Errorf("--step %s: must not be negative", step.String())
	}
	return max(int32(n), 1), nil
}

// available mirrors podutil.IsPodAvailable: Ready for at least minReadySeconds.
func available(p Pod, minReadySeconds int32, now time.Time) bool {
	if p.ReadySince.IsZero() {
		return false
	}
	return minReadySeconds == 0 || !p.ReadySince.Add(time.Duration(minReadySeconds)*time.Second).After(now)
}

// Next decides the drive's next move from s under c. Errors only on a malformed Config.
//
// Example: replicas 5, step 2, partition 5 -> SetPartition 3; pods 3 and 4 replaced and
// available -> SetPartition 1; then 0; all five available at partition 0 -> Done.
func Next(s State, c Config) (Decision, error) {
	size, err := StepSize(c.Step, s.Replicas)
	if err != nil {
		return Decision{}, err
	}
	p := min(max(s.Partition, 0), s.Replicas)
	byOrdinal := map[int32]Pod{}
	for _, pod := range s.Pods {
		byOrdinal[pod.Ordinal] = pod
	}
	// Check the pods at and above the partition, highest ordinal first as the controller goes.
	for o := s.Replicas - 1; o >= p; o-- {
		pod, ok := byOrdinal[o]
		if ok && pod.Revision == s.UpdateRevision && pod.Failed {
			return Decision{ActionHold, p, fmt.Sprintf("pod ordinal %d of revision %s failed", o, s.UpdateRevision)}, nil
		}
		if !ok || pod.Revision != s.UpdateRevision || !available(pod, s.MinReadySeconds, s.Now) {
			if c.ProgressDeadline > 0 && !s.StepStarted.IsZero() && s.Now.Sub(s.StepStarted) > c.ProgressDeadline {
				return Decision{ActionHold, p, fmt.Sprintf("pod ordinal %d not replaced and available within %s", o, c.ProgressDeadline)}, nil
			}
			return Decision{ActionWait, p, fmt.Sprintf("waiting for pod ordinal %d on revision %s to be available", o, s.UpdateRevision)}, nil
		}
	}
	if p == 0 {
		return Decision{ActionDone, 0, "every pod runs the update revision and is available"}, nil
	}
	if p < s.Replicas && slices.Contains(c.PauseAfter, p) && !s.Resumed {
		return Decision{ActionPause, p, fmt.Sprintf("paused after ordinal %d (--pause-after)", p)}, nil
	}
	next := max(p-size, 0)
	// Stop at the next pause-after ordinal on the way down.
	for _, o := range c.PauseAfter {
		if o < p && o > next {
			next = o
		}
	}
	return Decision{ActionSetPartition, next, fmt.Sprintf("lower partition %d -> %d", p, next)}, nil
}
