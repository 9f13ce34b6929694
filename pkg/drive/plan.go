package drive

import (
	"errors"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// Bounds are the limits a drive keeps, in pods, resolved from the Deployment's original
// RollingUpdate strategy at Replicas.
type Bounds struct {
	// Replicas is the Deployment's spec.replicas.
	Replicas int32
	// MaxSurge and MaxUnavailable are the original strategy's fenceposts in pods
	// (planner.ResolveFenceposts: surge rounds up, unavailable down, both 0 makes
	// unavailable 1), unavailable capped at Replicas.
	MaxSurge, MaxUnavailable int32
}

// MinAvailable is Replicas - MaxUnavailable: availability a drive never takes away below.
func (b Bounds) MinAvailable() int32 { return max(0, b.Replicas-b.MaxUnavailable) }

// MaxPods is Replicas + MaxSurge: the pods (sum of spec.replicas) a drive never exceeds,
// except the one extra pod a maxSurge of 0 needs (see Step.ExtraPod).
func (b Bounds) MaxPods() int32 { return b.Replicas + b.MaxSurge }

// ResolveBounds resolves strategy (a RollingUpdate strategy, defaulted as the API server
// stores it) at replicas.
//
// Example: 10 replicas, 25%/25% -> {10, 3, 2}: at most 13 pods, at least 8 available.
//
// Errors: a strategy that is not RollingUpdate, or an unparsable fencepost.
func ResolveBounds(replicas int32, strategy appsv1.DeploymentStrategy) (Bounds, error) {
	if strategy.Type != appsv1.RollingUpdateDeploymentStrategyType || strategy.RollingUpdate == nil {
		return Bounds{}, fmt.Errorf("strategy %q: drive keeps the bounds of a RollingUpdate strategy (maxSurge, maxUnavailable)", strategy.Type)
	}
	surge, unavailable, err := planner.ResolveFenceposts(strategy.RollingUpdate.MaxSurge, strategy.RollingUpdate.MaxUnavailable, replicas)
	if err != nil {
		return Bounds{}, err
	}
	return Bounds{Replicas: replicas, MaxSurge: surge, MaxUnavailable: min(unavailable, replicas)}, nil
}

// Counts are one ReplicaSet's replicas as a drive sees them.
type Counts struct {
	// Name of the ReplicaSet.
	Name string
	// Replicas is spec.replicas; Available is status.availableReplicas (only the part up to
	// Replicas counts: a scale-down removes unavailable pods first).
	Replicas, Available int32
}

func (c Counts) available() int32 { return max(0, min(c.Available, c.Replicas)) }

// Start is the state a drive plans from: the new ReplicaSet (the one the target template
// maps to; Replicas 0 and Exists false before it is created) and the old ones that still
// have replicas, in the order they are scaled down (oldest first, as the controller's
// scaleDownOldReplicaSetsForRollingUpdate; an abort puts the ReplicaSet it walks back from
// first).
type Start struct {
	New       Counts
	NewExists bool
	Old       []Counts
}

func (s Start) pods() int32 {
	n := s.New.Replicas
	for _, o := range s.Old {
		n += o.Replicas
	}
	return n
}

func (s Start) available() int32 {
	n := s.New.available()
	for _, o := range s.Old {
		n += o.available()
	}
	return n
}

func (s Start) clone() Start {
	out := s
	out.Old = append([]Counts(nil), s.Old...)
	return out
}

// Complete reports whether the rollout is complete for b: the new ReplicaSet has
// b.Replicas replicas, all available, and no old ReplicaSet has a replica.
func (s Start) Complete(b Bounds) bool {
	if s.New.Replicas != b.Replicas || s.New.available() != b.Replicas {
		return false
	}
	for _, o := range s.Old {
		if o.Replicas != 0 {
			return false
		}
	}
	return true
}

// Scale is one ReplicaSet's spec.replicas change.
type Scale struct {
	// Name of the ReplicaSet; Old indexes Start.Old (-1 for the new ReplicaSet).
	Name     string
	Old      int
	From, To int32
}

// Step is one step of a drive: scale the new ReplicaSet up (creating it on the first step),
// wait until it has WaitAvailable available pods, then scale old ReplicaSets down.
type Step struct {
	// Number counts the steps of a plan from 1.
	Number int
	// Create: the new ReplicaSet is created with New.To replicas.
	Create bool
	// New is the new ReplicaSet's scale (From == To: no write, only the wait).
	New Scale
	// WaitAvailable is the number of available pods of the new ReplicaSet the step waits for
	// before it scales old ReplicaSets down (New.To: every new pod).
	WaitAvailable int32
	// Old are the old ReplicaSets' scale-downs, in the order they are written.
	Old []Scale
	// Pods is the sum of spec.replicas at the peak of the step (after the scale-up).
	Pods int32
	// ExtraPod: Pods exceeds Replicas + MaxSurge by the one pod that a maxSurge of 0 needs to
	// make progress: the first new pod (the controller scales old down first, which a client
	// cannot do while only the old ReplicaSet is active) and the last one (the old
	// ReplicaSet keeps a pod until the new one is at replicas).
	ExtraPod bool
	// AvailableBefore is the available pods once the step's wait is over (the new pods
	// available); AvailableAfter once its scale-downs took effect. The fewest at any moment
	// of the step is min(available at its start, AvailableAfter).
	AvailableBefore, AvailableAfter int32
	// KeptOld: the step leaves an old pod it could have removed within the bounds, because
	// the new ReplicaSet is not at replicas yet (the paused controller would scale a lone
	// active ReplicaSet to spec.replicas).
	KeptOld bool
	// After is the state the step leaves, every pod of the new ReplicaSet available.
	After Start
}

// Writes counts the ReplicaSet writes of the step (a create counts as one).
func (s Step) Writes() int {
	n := len(s.Old)
	if s.Create || s.New.From != s.New.To {
		n++
	}
	return n
}

// ErrNoProgress is returned by NextStep and PlanSteps when no step can move the state
// closer to complete within the bounds (it does not happen for valid input; it guards the
// loop).
var ErrNoProgress = errors.New("drive: no step makes progress within the bounds")

// NextStep returns the step that a drive makes from s, and false when s is complete.
//
// The step: scale the new ReplicaSet up to min(replicas, new + (replicas+maxSurge - pods))
// (down to replicas if it is above), wait until every new pod is available, then scale the
// old ReplicaSets down, oldest first, unavailable pods first (as cleanupUnhealthyReplicas),
// then available ones while availability stays at least replicas-maxUnavailable. Two rules
// keep the paused controller (strategy Recreate) from writing: the new ReplicaSet is never
// left at 0 once created and old ReplicaSets never all reach 0 before the new one is at
// replicas (the controller sets a lone active ReplicaSet to spec.replicas), and no old
// ReplicaSet is scaled down while the new one is at 0.
//
// When that step changes nothing (maxSurge 0: no room for a new pod), it takes one extra
// pod: the new ReplicaSet goes up by one (Step.ExtraPod).
//
// Example, 10 replicas, 25%/25% (13 pods at most, 8 available at least), old at 10:
// step 1 creates new at 3, waits for 3, scales old 10 -> 5; step 2 new 3 -> 8, old 5 -> 1
// (not 0: new is not at 10 yet); step 3 new 8 -> 10, old 1 -> 0.
func NextStep(b Bounds, s Start) (Step, bool, error) {
	if b.Replicas < 1 {
		return Step{}, false, fmt.Errorf("drive: replicas is %d: nothing to drive", b.Replicas)
	}
	if s.Complete(b) {
		return Step{}, false, nil
	}
	st := stepWithin(b, s, b.MaxPods())
	if !progresses(s, st) && st.New.To < b.Replicas {
		st = stepWithin(b, s, max(s.pods(), st.Pods)+1)
		st.ExtraPod = st.Pods > b.MaxPods()
	}
	if !progresses(s, st) {
		return Step{}, false, ErrNoProgress
	}
	return st, true, nil
}

// PlanSteps returns every step a drive makes from s to complete, assuming that the pods a
// step waits for become available and that other pods keep their availability. The plan
// is memoryless: PlanSteps(b, plan[i].After) equals plan[i+1:] (renumbered), so a drive
// that stops anywhere continues with the same steps.
//
// Errors: replicas below 1, or ErrNoProgress.
func PlanSteps(b Bounds, s Start) ([]Step, error) {
	var steps []Step
	guard := 2*int(s.pods()+b.Replicas) + 8
	for cur := s.clone(); ; {
		st, ok, err := NextStep(b, cur)
		if err != nil {
			return nil, err
		}
		if !ok {
			return steps, nil
		}
		if len(steps) == guard {
			return nil, ErrNoProgress
		}
		st.Number = len(steps) + 1
		steps = append(steps, st)
		cur = st.After.clone()
	}
}

// stepWithin computes the step with the pods capped at limit.
func stepWithin(b Bounds, s Start, limit int32) Step {
	pods := s.pods()
	newTo := s.New.Replicas
	if newTo > b.Replicas {
		newTo = b.Replicas
	} else {
		newTo = min(b.Replicas, newTo+max(0, limit-pods))
	}
	st := Step{
		Create:        !s.NewExists && newTo > 0,
		New:           Scale{Name: s.New.Name, Old: -1, From: s.New.Replicas, To: newTo},
		WaitAvailable: newTo,
		Pods:          max(pods, pods-s.New.Replicas+newTo),
	}
	after := s.clone()
	after.NewExists = s.NewExists || newTo > 0
	after.New.Replicas, after.New.Available = newTo, newTo
	st.AvailableBefore = after.available()
	after.Old, st.KeptOld = scaleDownOld(b, after)
	for i, o := range after.Old {
		if o.Replicas != s.Old[i].Replicas {
			st.Old = append(st.Old, Scale{Name: o.Name, Old: i, From: s.Old[i].Replicas, To: o.Replicas})
		}
	}
	st.AvailableAfter = after.available()
	st.After = after
	return st
}

// scaleDownOld returns s.Old after the largest scale-down the rules allow, s.New being at
// its target (with the availability it has), and whether the lone-ReplicaSet rule kept pods
// that availability would have let go. See NextStep.
func scaleDownOld(b Bounds, s Start) ([]Counts, bool) {
	olds := append([]Counts(nil), s.Old...)
	if s.New.Replicas == 0 {
		return olds, false
	}
	// The removals, one pod at a time, in order: unavailable pods first, then available
	// ones while availability stays at MinAvailable or above.
	var removals []int // indexes into olds
	for i, o := range olds {
		for range o.Replicas - o.available() {
			removals = append(removals, i)
		}
	}
	budget := s.available() - b.MinAvailable()
	for i, o := range olds {
		n := max(0, min(o.available(), budget))
		for range n {
			removals = append(removals, i)
		}
		budget -= n
	}
	// The longest prefix of removals that leaves no lone active ReplicaSet below replicas.
	for n := len(removals); n >= 0; n-- {
		cand := append([]Counts(nil), s.Old...)
		for _, i := range removals[:n] {
			cand[i].Replicas--
		}
		for i := range cand {
			cand[i].Available = min(cand[i].Available, cand[i].Replicas)
		}
		if !loneBelowReplicas(b, s.New.Replicas, cand) {
			return cand, n < len(removals)
		}
	}
	return olds, len(removals) > 0
}

// loneBelowReplicas reports whether exactly one ReplicaSet is active (has replicas) and it
// is not at replicas: the state the paused controller corrects (scale(), FindActiveOrLatest).
func loneBelowReplicas(b Bounds, newReplicas int32, olds []Counts) bool {
	active := 0
	var lone int32
	if newReplicas > 0 {
		active++
		lone = newReplicas
	}
	for _, o := range olds {
		if o.Replicas > 0 {
			active++
			lone = o.Replicas
		}
	}
	return active == 1 && lone != b.Replicas
}

// progresses reports whether st changes anything: a write, or new pods to wait for.
func progresses(s Start, st Step) bool {
	if st.New.To != st.New.From || len(st.Old) > 0 {
		return true
	}
	return s.New.available() < st.WaitAvailable
}
