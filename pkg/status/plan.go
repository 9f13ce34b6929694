package status

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/deployutil"
	"github.com/rollplan/kubectl-rollplan/pkg/drive"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// plan plans the whole rollout from StartState (under opts.Plan, or the batched model) and
// counts the steps the live ReplicaSets reached.
func (s *Status) plan(d *appsv1.Deployment, rss []*appsv1.ReplicaSet, opts Options) {
	simulate := opts.Plan
	if simulate == nil {
		simulate = planner.Simulate
	}
	p, err := simulate(StartState(d, rss))
	if err != nil {
		s.PlanError = err.Error()
		return
	}
	s.Plan, s.Strategy, s.Steps = p, p.Strategy, len(p.Steps)
	s.Step = Reached(p, rss, s.NewReplicaSet)
}

// Reached returns how many leading steps of p the live ReplicaSets rss have reached: a step
// that scales a ReplicaSet up is reached when its spec.replicas is at least the step's To
// (for a create: the ReplicaSet exists with at least To), one that scales down when it is
// at most To (an absent ReplicaSet has 0). The controller may reach a step through several
// smaller writes (pods becoming available one by one), so a step is reached, not matched.
// newRS names the live new ReplicaSet, which stands for the plan's new ReplicaSet whatever
// its name in the plan ("" when there is none yet).
func Reached(p *planner.Plan, rss []*appsv1.ReplicaSet, newRS string) int {
	live := map[string]int32{}
	for _, rs := range rss {
		live[rs.Name] = ptr.Deref(rs.Spec.Replicas, 1)
	}
	for i, st := range p.Steps {
		info := p.ReplicaSets[st.ReplicaSet]
		name := info.Name
		if info.New && newRS != "" {
			name = newRS
		}
		cur, ok := live[name]
		up := st.To > st.From || st.Create
		if up && (!ok || cur < st.To) || !up && cur > st.To {
			return i
		}
	}
	return len(p.Steps)
}

// next sets Next to the first write of the plan from the live state under readiness, and
// reports whether it found one and whether that write waits for nothing.
func (s *Status) next(d *appsv1.Deployment, rss []*appsv1.ReplicaSet, readiness planner.Readiness) (found, now bool) {
	p, err := planner.Simulate(planner.Input{Deployment: d, ReplicaSets: rss, Readiness: readiness})
	if err != nil || len(p.Steps) == 0 {
		return false, false
	}
	st := p.Steps[0]
	s.Next = &Write{ReplicaSet: p.ReplicaSets[st.ReplicaSet].Name, From: st.From, To: st.To, Create: st.Create}
	return true, st.Wait == planner.WaitNone
}

// times sets StartedAt, CompletedAt and Elapsed.
func (s *Status) times(d *appsv1.Deployment, rss []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) {
	c := progressing(d)
	switch {
	case newRS != nil && createdByRollout(newRS, rss):
		s.StartedAt = newRS.CreationTimestamp.Time
	case c != nil && (c.Reason == FoundNewRSReason || c.Reason == NewReplicaSetReason):
		// A reused ReplicaSet: the controller set this reason when it found it, and keeps it
		// until the first progress.
		s.StartedAt = c.LastUpdateTime.Time
	}
	if s.Phase == PhaseComplete && c != nil && c.Reason == NewRSAvailableReason {
		s.CompletedAt = c.LastUpdateTime.Time
	}
	end := s.At
	if s.Phase == PhaseComplete {
		end = s.CompletedAt
	}
	if !s.StartedAt.IsZero() && !end.IsZero() && !end.Before(s.StartedAt) {
		s.Elapsed = end.Sub(s.StartedAt)
	}
}

// held replaces the step count and start with drive's, for a Deployment drive holds.
func (s *Status) held(d *appsv1.Deployment, held string) {
	s.HeldBy = held
	st, err := drive.ReadState(d)
	if err != nil || st == nil {
		return
	}
	s.Step, s.Steps = st.Step, st.Steps
	s.StartedAt = st.StartedAt
	s.Elapsed = max(0, s.At.Sub(st.StartedAt))
	s.Waiting = "kubectl rollplan drive: " + held
	if st.HeldReason != "" {
		s.Waiting += ": " + st.HeldReason
	}
}

// newCounts returns the new ReplicaSet's spec.replicas and available pods (0, 0 without one).
func newCounts(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) (replicas, available int32) {
	if rs := deployutil.FindNewReplicaSet(d, rss); rs != nil {
		return ptr.Deref(rs.Spec.Replicas, 1), rs.Status.AvailableReplicas
	}
	return 0, 0
}

// terminating returns the old pods still running above their ReplicaSets' spec.replicas.
func terminating(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) int32 {
	newRS := deployutil.FindNewReplicaSet(d, rss)
	var n int32
	for _, rs := range rss {
		if rs != newRS {
			n += max(0, rs.Status.Replicas-ptr.Deref(rs.Spec.Replicas, 1))
		}
	}
	return n
}

// durationSince is now - t, 0 for a zero t or a t after now.
func durationSince(t, now time.Time) time.Duration {
	if t.IsZero() || now.Before(t) {
		return 0
	}
	return now.Sub(t)
}
