package daemonset

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// ErrNoFixedPoint: the simulated controller kept making operations for MaxSyncs syncs.
var ErrNoFixedPoint = errors.New("the simulated DaemonSet controller did not settle")

// Simulate plays the v1.36.3 DaemonSet controller's syncs on in and returns its pod
// operations. Each sync: the revision (constructHistory: a matching ControllerRevision
// reused and renumbered, else a new one, hash collisions costing a failed sync each); manage
// (creates and deletes toward one pod per node); when manage did nothing, the RollingUpdate
// strategy (OnDelete does nothing); cleanupHistory. Pods the controller deletes are gone
// before the next sync; pods it creates are bound to their node at once. Between syncs pods
// become available by in.Readiness: batched (all, once a sync makes no operation), instant
// (all, after every sync that made one), never, or timed: a created pod is Ready
// in.ReadyAfter after its creation and available minReadySeconds later, a sync that makes
// operations is followed by the next in.SyncLatency later, and a sync that makes none moves
// the clock to the next pod becoming Ready or available (Plan.SyncAt, Plan.Duration). The run
// ends at the first sync that makes no operation (under batched and timed, with no pod left
// to become available).
//
// Example (TestTimedDeleteFirst): 5 nodes, maxUnavailable 2, pods Ready 10s after creation,
// no latency: 2 nodes at 0s, 2 at 10s, the last at 20s; Duration 30s (3 rounds).
//
// Errors: a missing DaemonSet, an unknown readiness (wraps planner.ErrNotModelled), an
// invalid maxSurge or maxUnavailable, a pod that names no node, ErrNoFixedPoint.
//
// Mirrors syncDaemonSet and updateDaemonSet, pkg/controller/daemon, v1.36.3.
func Simulate(in Input) (*Plan, error) {
	if in.DaemonSet == nil {
		return nil, errors.New("simulate: no DaemonSet given")
	}
	readiness := cmp.Or(in.Readiness, planner.ReadinessBatched)
	switch readiness {
	case planner.ReadinessBatched, planner.ReadinessInstant, planner.ReadinessNever, planner.ReadinessTimed:
	default:
		return nil, fmt.Errorf("readiness %q is %w for DaemonSets: use batched, instant, never or timed", readiness, planner.ErrNotModelled)
	}
	hist, err := resolveHistory(in.DaemonSet, in.Revisions)
	if err != nil {
		return nil, err
	}
	s, err := newState(in, hist.update.Hash)
	if err != nil {
		return nil, err
	}
	s.revisionOf = map[string]Revision{}
	for _, r := range hist.old {
		s.revisionOf[r.Hash] = r
	}
	s.revisionOf[hist.update.Hash] = hist.update
	plan := &Plan{UpdateRevision: hist.update}
	plan.MaxSurge, plan.MaxUnavailable, plan.DesiredNumberScheduled, err = s.counts()
	if err != nil {
		return nil, err
	}
	old := hist.old
	maxSyncs := cmp.Or(in.MaxSyncs, DefaultMaxSyncs)
	for step := hist.update.Collisions + 1; ; step++ {
		if step > maxSyncs {
			return nil, fmt.Errorf("daemonset %s/%s after %d syncs: %w", in.DaemonSet.Namespace, in.DaemonSet.Name, maxSyncs, ErrNoFixedPoint)
		}
		plan.Syncs = step
		if readiness == planner.ReadinessTimed {
			for len(plan.SyncAt) < step {
				plan.SyncAt = append(plan.SyncAt, s.clock.now)
			}
		}
		o := s.manage(step)
		o.burst()
		if len(o.creates)+len(o.deletes) == 0 && in.DaemonSet.Spec.UpdateStrategy.Type == appsv1.RollingUpdateDaemonSetStrategyType {
			if o, err = s.rollingUpdate(step); err != nil {
				return nil, err
			}
			o.burst()
		}
		old = s.cleanupHistory(step, old, plan)
		if o.choice && plan.OrderMattersFrom == 0 {
			plan.OrderMattersFrom = step
		}
		s.apply(step, o, plan)
		if step == hist.update.Collisions+1 {
			s.dedup(step, hist.duplicates, plan)
		}
		wrote := len(o.creates)+len(o.deletes) > 0
		if readiness == planner.ReadinessTimed {
			if !s.settleTimed(wrote) {
				break
			}
			continue
		}
		if !s.settle(readiness, wrote) {
			break
		}
	}
	s.finish(plan)
	if readiness == planner.ReadinessTimed {
		plan.Duration = s.duration(plan.Outcome)
	}
	return plan, nil
}

// apply makes the sync's operations: deleted pods are gone, created ones bound to their node
// and not ready; pods deleting at the start have terminated after the first sync.
func (s *state) apply(step int, o ops, plan *Plan) {
	for _, p := range o.deletes {
		r := s.revisionOf[p.hash]
		plan.PodOperations = append(plan.PodOperations, planner.PodOperation{Step: step, Action: planner.PodDelete, Pod: p.name, Node: p.node, Revision: r.Name, RevisionNumber: r.Number})
	}
	for _, node := range o.creates {
		r := s.revisionOf[s.hash]
		plan.PodOperations = append(plan.PodOperations, planner.PodOperation{Step: step, Action: planner.PodCreate, Node: node, Revision: r.Name, RevisionNumber: r.Number})
		p := &pod{order: s.nextOrder, node: node, hash: s.hash, scheduled: true,
			readyAt: s.clock.now + s.in.ReadyAfter, availableAt: s.clock.now + s.in.ReadyAfter + secondsOf(s.ds.Spec.MinReadySeconds)}
		if s.tmplGen != nil {
			p.gen = fmt.Sprint(*s.tmplGen)
		}
		s.pods = append(s.pods, p)
		s.nextOrder++
	}
	s.pods = slices.DeleteFunc(s.pods, func(p *pod) bool { return slices.Contains(o.deletes, p) || p.deleting })
	if len(o.creates)+len(o.deletes) > 0 {
		st := Step{Step: step, Creates: len(o.creates), Deletes: len(o.deletes)}
		st.Unavailable, st.Surging = s.bounds()
		plan.Steps = append(plan.Steps, st)
	}
}

// dedup plays dedupCurHistories: other revisions that match the template are deleted and
// every pod is relabelled with the kept revision's hash (upstream patches every pod whose
// hash differs, old ones included); the sync's own decisions read the pods before it.
func (s *state) dedup(step int, duplicates []Revision, plan *Plan) {
	if len(duplicates) == 0 {
		return
	}
	for _, d := range duplicates {
		plan.RevisionsDeleted = append(plan.RevisionsDeleted, RevisionDelete{Step: step, Revision: d.Name})
	}
	for _, p := range s.pods {
		p.hash = s.hash
	}
}

// bounds counts the nodes that should run the pod and have no available one, and the nodes
// with more than one pod.
func (s *state) bounds() (unavailable, surging int) {
	byNode := s.podsByNode()
	for name, n := range s.nodes {
		if n.shouldRun && !slices.ContainsFunc(byNode[name], func(p *pod) bool { return p.available }) {
			unavailable++
		}
	}
	for _, pods := range byNode {
		if len(pods) > 1 {
			surging++
		}
	}
	return unavailable, surging
}

// settle plays the readiness model after a sync and reports whether the run goes on.
func (s *state) settle(r planner.Readiness, wrote bool) bool {
	switch {
	case r == planner.ReadinessInstant && wrote:
		s.makeAvailable()
		return true
	case r == planner.ReadinessBatched && !wrote:
		if !slices.ContainsFunc(s.pods, func(p *pod) bool { return !p.available && !p.terminal() }) {
			return false
		}
		s.makeAvailable()
		return true
	}
	return wrote
}

func (s *state) makeAvailable() {
	for _, p := range s.pods {
		if !p.terminal() {
			p.ready, p.available = true, true
		}
	}
}

// finish fills the plan's outcome, nodes and pods left waiting, and sorts the operations by
// node name (the order across nodes is the controller's random one), then step.
func (s *state) finish(plan *Plan) {
	slices.SortStableFunc(plan.PodOperations, func(a, b planner.PodOperation) int {
		return cmp.Or(cmp.Compare(a.Node, b.Node), cmp.Compare(a.Step, b.Step))
	})
	byNode := s.podsByNode()
	updated, available := 0, 0
	for _, name := range s.nodeNames {
		n := s.nodes[name]
		plan.Nodes = append(plan.Nodes, NodeReport{Name: name, ShouldRun: n.shouldRun, ShouldContinueRunning: n.shouldStay, Reason: n.reason})
		pods := slices.SortedStableFunc(slices.Values(byNode[name]), olderThan)
		if n.shouldRun && len(pods) > 0 {
			if pods[0].available {
				available++
			}
			if s.updated(pods[0]) {
				updated++
			}
		}
		if s.ds.Spec.UpdateStrategy.Type != appsv1.OnDeleteDaemonSetStrategyType {
			continue
		}
		for _, p := range pods {
			if !s.updated(p) {
				r := s.revisionOf[p.hash]
				plan.WaitingForDelete = append(plan.WaitingForDelete, PodRef{Pod: p.name, Node: name, Revision: r.Name, RevisionNumber: r.Number})
			}
		}
	}
	desired := plan.DesiredNumberScheduled
	switch {
	case updated == desired && available == desired && len(plan.PodOperations) == 0:
		plan.Outcome = OutcomeNoChange
	case updated == desired && available == desired:
		plan.Outcome = OutcomeComplete
	case len(plan.WaitingForDelete) > 0:
		plan.Outcome = OutcomeWaitingForDelete
	default:
		plan.Outcome = OutcomeStalled
	}
}

// cleanupHistory deletes the oldest old ControllerRevisions beyond revisionHistoryLimit
// whose hash no pod runs (pods as the sync read them, terminal ones included), and returns
// the old revisions left. Mirrors cleanupHistory, pkg/controller/daemon/update.go, v1.36.3.
func (s *state) cleanupHistory(step int, old []Revision, plan *Plan) []Revision {
	limit := 10
	if l := s.ds.Spec.RevisionHistoryLimit; l != nil {
		limit = int(*l)
	}
	toKill := len(old) - limit
	if toKill <= 0 {
		return old
	}
	live := map[string]bool{}
	for _, p := range s.pods {
		if p.hash != "" {
			live[p.hash] = true
		}
	}
	old = slices.SortedStableFunc(slices.Values(old), func(a, b Revision) int { return cmp.Compare(a.Number, b.Number) })
	return slices.DeleteFunc(old, func(r Revision) bool {
		if toKill <= 0 || live[r.Hash] {
			return false
		}
		toKill--
		plan.RevisionsDeleted = append(plan.RevisionsDeleted, RevisionDelete{Step: step, Revision: r.Name})
		return true
	})
}
