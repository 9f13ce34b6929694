package statefulset

import (
	"fmt"
	"sort"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// world is the state between syncs: the set (its status as last written), the revisions,
// the pods by name, the clock.
type world struct {
	set    *appsv1.StatefulSet
	revs   []*appsv1.ControllerRevision
	pods   map[string]*corev1.Pod
	now    time.Time
	broken map[string]bool
}

func (w *world) podList() []*corev1.Pod {
	out := make([]*corev1.Pod, 0, len(w.pods))
	for _, p := range w.pods {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Simulate plays the StatefulSet controller's syncs from in, with the readiness model between
// syncs, until a sync writes nothing and the model changes nothing (or MaxSyncs), and returns
// the plan: pod and revision operations in order, the status of every sync, the outcome.
//
// Between syncs (the conformance harness plays the same rules): a deleted pod is gone; a
// created pod is Pending; a terminating pod's deletion completes; then the readiness model
// (Readiness) makes pods Running and Ready (never those of a Broken revision); when a sync
// wrote nothing and no pod changed, the clock moves to the next moment a Ready pod becomes
// available, and the run ends when there is none.
//
// Example (TestSimulateExamples): 3 replicas OrderedReady on revision A, template changed to B,
// batched: sync 1 creates revision B and deletes web-2; sync 2 creates web-2 at B; sync 3
// waits; the pods become Ready; sync 4 deletes web-1; ... web-0 last; Complete.
//
// Errors: no StatefulSet or no spec.replicas; a readiness other than the four models (or
// empty, which plays as never), wrapping planner.ErrNotModelled; the sync's.
func Simulate(in Input) (*Plan, error) {
	if in.StatefulSet == nil || in.StatefulSet.Spec.Replicas == nil {
		return nil, fmt.Errorf("statefulset planner: no StatefulSet or no spec.replicas (the input must be server-defaulted)")
	}
	switch in.Readiness {
	case "", ReadinessBatched, ReadinessInstant, ReadinessNever, ReadinessTimed:
	default:
		return nil, fmt.Errorf("readiness %q is %w for StatefulSets: use batched, instant, never or timed", in.Readiness, planner.ErrNotModelled)
	}
	w := &world{set: in.StatefulSet.DeepCopy(), pods: map[string]*corev1.Pod{}, now: in.Now, broken: map[string]bool{}}
	for _, r := range in.Revisions {
		w.revs = append(w.revs, r.DeepCopy())
	}
	for _, p := range in.Pods {
		w.pods[p.Name] = p.DeepCopy()
	}
	for _, b := range in.Broken {
		w.broken[b] = true
	}
	maxSyncs := in.MaxSyncs
	if maxSyncs == 0 {
		maxSyncs = DefaultMaxSyncs
	}
	plan := &Plan{PodOperations: []planner.PodOperation{}}
	for step := 1; ; step++ {
		if step > maxSyncs {
			plan.Outcome, plan.Reason = Incomplete, fmt.Sprintf("no end after %d syncs", maxSyncs)
			return plan, nil
		}
		res, err := syncOnce(w.set, w.revs, w.podList(), w.now)
		if err != nil {
			return nil, err
		}
		plan.Syncs = step
		if in.Readiness == ReadinessTimed {
			plan.SyncAt = append(plan.SyncAt, w.now.Sub(in.Now))
		}
		if step == 1 {
			plan.UpdateRevision, plan.CurrentRevision = res.status.UpdateRevision, res.status.CurrentRevision
			plan.CollisionCount = *res.status.CollisionCount
			for _, r := range res.revisionsAfter {
				if r.Name == plan.UpdateRevision {
					plan.UpdateRevisionNumber = r.Revision
				}
			}
		}
		for _, op := range res.pods {
			op.Step = step
			plan.PodOperations = append(plan.PodOperations, op)
		}
		for _, op := range res.revisions {
			op.Step = step
			plan.RevisionOperations = append(plan.RevisionOperations, op)
		}
		plan.Statuses = append(plan.Statuses, res.status)
		wrote := len(res.pods) > 0 || len(res.revisions) > 0 || res.statusWritten
		w.revs = res.revisionsAfter
		if res.statusWritten {
			w.set.Status = *res.status.DeepCopy()
		}
		if in.Readiness == ReadinessTimed {
			if !w.advanceTimed(res, wrote, in.ReadyAfter, in.SyncLatency) {
				break
			}
			continue
		}
		if !w.advance(res, in.Readiness, wrote) {
			break
		}
	}
	plan.Outcome, plan.Reason, plan.StalledOn, plan.WaitingForDelete = outcome(w)
	if in.Readiness == ReadinessTimed {
		plan.Duration = w.now.Sub(in.Now)
	}
	return plan, nil
}

// advance applies a sync's pod writes and plays the model; false when nothing changes and
// the sync wrote nothing (the run ends).
func (w *world) advance(res syncResult, readiness Readiness, wrote bool) bool {
	changed := w.apply(res)
	if (readiness == ReadinessInstant && wrote) || (readiness == ReadinessBatched && !wrote && !changed) {
		for _, p := range w.podList() {
			if !isReady(p) && !w.broken[revisionOf(p)] && !isFailed(p) {
				makeReady(p, w.now)
				changed = true
			}
		}
	}
	if wrote || changed {
		return true
	}
	var next time.Time
	for _, p := range w.pods {
		if at := availableAt(p, w.set.Spec.MinReadySeconds); isReady(p) && at.After(w.now) && (next.IsZero() || at.Before(next)) {
			next = at
		}
	}
	if next.IsZero() {
		return false
	}
	w.now = next
	return true
}

// apply applies a sync's pod writes between syncs: terminating pods are gone (changed: some
// were), deleted pods are gone, created pods are Pending, created now.
func (w *world) apply(res syncResult) (changed bool) {
	for name, p := range w.pods {
		if isTerminating(p) {
			delete(w.pods, name)
			changed = true
		}
	}
	for _, name := range res.deleted {
		delete(w.pods, name)
	}
	for _, p := range res.created {
		c := p.DeepCopy()
		c.Status.Phase = corev1.PodPending
		c.CreationTimestamp = metav1.NewTime(w.now)
		w.pods[c.Name] = c
	}
	return changed
}

// advanceTimed is advance under ReadinessTimed: the sync's pod writes are applied (a created
// pod is Pending, created now); after a sync that writes, the clock moves by latency; pods
// whose readyAfter has passed become Ready at that moment; when nothing was written and
// nothing changed, the clock moves to the next pod becoming Ready or available. False when
// there is no such moment (the run ends).
func (w *world) advanceTimed(res syncResult, wrote bool, readyAfter, latency time.Duration) bool {
	changed := w.apply(res)
	if wrote {
		w.now = w.now.Add(latency)
	}
	readyAt := func(p *corev1.Pod) time.Time { return p.CreationTimestamp.Add(readyAfter) }
	for _, p := range w.podList() {
		if !isReady(p) && !w.broken[revisionOf(p)] && !isFailed(p) && !readyAt(p).After(w.now) {
			makeReady(p, readyAt(p))
			changed = true
		}
	}
	if wrote || changed {
		return true
	}
	var next time.Time
	for _, p := range w.pods {
		at := availableAt(p, w.set.Spec.MinReadySeconds)
		if !isReady(p) && !w.broken[revisionOf(p)] && !isFailed(p) {
			at = readyAt(p)
		}
		if at.After(w.now) && (next.IsZero() || at.Before(next)) {
			next = at
		}
	}
	if next.IsZero() {
		return false
	}
	w.now = next
	return true
}

// makeReady makes pod Running with a Ready condition that turned True at now.
func makeReady(pod *corev1.Pod, now time.Time) {
	pod.Status.Phase = corev1.PodRunning
	if c := readyCondition(pod); c != nil {
		c.Status, c.LastTransitionTime = corev1.ConditionTrue, metav1.NewTime(now)
		return
	}
	pod.Status.Conditions = append(pod.Status.Conditions, corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(now)})
}
