package statefulset

import (
	"fmt"
	"sort"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/planner/revisions"
)

// syncResult is what one sync of the controller decides.
type syncResult struct {
	pods      []planner.PodOperation
	revisions []RevisionOperation
	status    appsv1.StatefulSetStatus
	// statusWritten: the status differs from the set's (inconsistentStatus) and is written.
	statusWritten bool
	// created and deleted pods, for the world to apply.
	created []*corev1.Pod
	deleted []string
	// revisionsAfter is the history after the sync.
	revisionsAfter []*appsv1.ControllerRevision
}

// syncOnce plays one sync of the StatefulSet controller on set (with its status), its
// revisions and pods at now.
//
// Mirrors defaultStatefulSetControl.UpdateStatefulSet (performUpdate, updateStatefulSet,
// updateStatefulSetAfterInvariantEstablished, updateStatefulSetStatus, truncateHistory),
// pkg/controller/statefulset/stateful_set_control.go, v1.36.3, for sets without
// volumeClaimTemplates and pods whose identity matches. The MaxUnavailableStatefulSet path is
// taken when spec.updateStrategy.rollingUpdate.maxUnavailable is set.
func syncOnce(set *appsv1.StatefulSet, revs []*appsv1.ControllerRevision, pods []*corev1.Pod, now time.Time) (syncResult, error) {
	var out syncResult
	listed := append([]*appsv1.ControllerRevision(nil), revs...)
	revisions.Sort(listed)
	res, err := revisions.ResolveStatefulSet(set, listed)
	if err != nil {
		return out, err
	}
	current, update := res.Current, res.Update
	switch res.Action {
	case revisions.Created:
		out.revisions = append(out.revisions, RevisionOperation{Action: "Create", Name: update.Name, Revision: update.Revision})
	case revisions.Reused:
		out.revisions = append(out.revisions, RevisionOperation{Action: "Update", Name: update.Name, Revision: update.Revision})
	}
	numbers := map[string]int64{}
	for _, r := range res.Revisions {
		numbers[r.Name] = r.Revision
	}

	status := appsv1.StatefulSetStatus{
		ObservedGeneration: set.Generation,
		CurrentRevision:    current.Name,
		UpdateRevision:     update.Name,
		CollisionCount:     &res.CollisionCount,
	}
	minReady := set.Spec.MinReadySeconds
	start := 0
	if set.Spec.Ordinals != nil {
		start = int(set.Spec.Ordinals.Start)
	}
	replicaCount := int(*set.Spec.Replicas)
	replicas := make([]*corev1.Pod, replicaCount)
	var condemned []*corev1.Pod
	for _, pod := range pods {
		o := ordinal(pod)
		switch {
		case o >= start && o < start+replicaCount:
			replicas[o-start] = pod
		case o >= 0:
			condemned = append(condemned, pod)
		}
	}
	for i := range replicas {
		if replicas[i] == nil {
			replicas[i] = newPod(set, start+i, podRevisionFor(set, start+i, start, current.Name, update.Name))
		}
	}
	sort.SliceStable(condemned, func(i, j int) bool { return ordinal(condemned[i]) > ordinal(condemned[j]) })
	var firstUnavailable *corev1.Pod
	for _, p := range replicas {
		if isUnavailable(p, minReady, now) && firstUnavailable == nil {
			firstUnavailable = p
		}
	}
	for i := len(condemned) - 1; i >= 0; i-- {
		if isUnavailable(condemned[i], minReady, now) && firstUnavailable == nil {
			firstUnavailable = condemned[i]
		}
	}
	monotonic := set.Spec.PodManagementPolicy != appsv1.ParallelPodManagement
	// del records a deletion once: Parallel can delete a failed pod in processReplica and
	// again in the update loop (its in-memory copy is not terminating); the second call finds
	// it gone (NotFound, which DeleteStatefulPod sinks) or deletes a terminating pod again.
	del := func(p *corev1.Pod) {
		for _, name := range out.deleted {
			if name == p.Name {
				return
			}
		}
		out.pods = append(out.pods, planner.PodOperation{Action: planner.PodDelete, Pod: p.Name, Revision: revisionOf(p), RevisionNumber: numbers[revisionOf(p)]})
		out.deleted = append(out.deleted, p.Name)
	}
	finish := func() {
		setStatus(&status, minReady, current.Name, update.Name, now, append(append([]*corev1.Pod(nil), replicas...), condemned...))
	}

	exited := forAll(len(replicas), monotonic, func(i int) bool {
		p := replicas[i]
		if isFailed(p) {
			if !isTerminating(p) {
				del(p)
			}
			return true
		}
		if !isCreated(p) {
			rev := revisionOf(p)
			out.pods = append(out.pods, planner.PodOperation{Action: planner.PodCreate, Pod: p.Name, Revision: rev, RevisionNumber: numbers[rev]})
			out.created = append(out.created, p)
			if monotonic {
				return true
			}
		}
		if monotonic && (isTerminating(p) || !isRunningAndReady(p) || !isAvailable(p, minReady, now)) {
			return true
		}
		return false
	})
	if !exited {
		exited = forAll(len(condemned), monotonic, func(i int) bool {
			p := condemned[i]
			if isTerminating(p) {
				return monotonic
			}
			if monotonic && p != firstUnavailable && (!isRunningAndReady(p) || !isAvailable(p, minReady, now)) {
				return true
			}
			del(p)
			return true
		})
	}
	finish()
	if !exited && set.Spec.UpdateStrategy.Type != appsv1.OnDeleteStatefulSetStrategyType {
		for _, p := range rollingDeletes(set, replicas, update.Name, now) {
			del(p)
			status.CurrentReplicas--
		}
	}

	completeRollingUpdate(set, &status)
	out.status = status
	out.statusWritten = inconsistentStatus(set, &status)

	var podRevisions []string
	for _, p := range pods {
		podRevisions = append(podRevisions, revisionOf(p))
	}
	gone := map[string]bool{}
	for _, r := range revisions.TruncateStatefulSet(listed, current.Name, update.Name, podRevisions, set.Spec.RevisionHistoryLimit) {
		out.revisions = append(out.revisions, RevisionOperation{Action: "Delete", Name: r.Name, Revision: numbers[r.Name]})
		gone[r.Name] = true
	}
	for _, r := range res.Revisions {
		if !gone[r.Name] {
			out.revisionsAfter = append(out.revisionsAfter, r)
		}
	}
	return out, nil
}

// forAll mirrors runForAll: monotonic, fn runs in order until it returns true (and forAll
// returns true); otherwise (slowStartBatch, no errors in this model) fn runs for every index,
// in order, and forAll returns false.
func forAll(n int, monotonic bool, fn func(int) bool) bool {
	for i := 0; i < n; i++ {
		if fn(i) && monotonic {
			return true
		}
	}
	return false
}

// rollingDeletes returns the pods the RollingUpdate strategy deletes in this sync, in order.
// Without maxUnavailable (the MaxUnavailableStatefulSet gate off: the field is dropped): the
// highest ordinal from the partition up that is not on the update revision, unless a higher
// one is unavailable. With it: up to maxUnavailable minus the unavailable replicas, highest
// ordinal first.
//
// Example: 5 replicas, maxUnavailable 2, partition 0, pod 4 already updated but not Ready:
// one unavailable, so one deletion, pod 3.
//
// Mirrors the end of updateStatefulSet and updateStatefulSetAfterInvariantEstablished,
// pkg/controller/statefulset/stateful_set_control.go, v1.36.3.
func rollingDeletes(set *appsv1.StatefulSet, replicas []*corev1.Pod, update string, now time.Time) []*corev1.Pod {
	minReady := set.Spec.MinReadySeconds
	updateMin := 0
	ru := set.Spec.UpdateStrategy.RollingUpdate
	if ru != nil && ru.Partition != nil {
		updateMin = int(*ru.Partition)
	}
	stale := func(p *corev1.Pod) bool { return revisionOf(p) != update && !isTerminating(p) }
	if ru == nil || ru.MaxUnavailable == nil {
		for target := len(replicas) - 1; target >= updateMin; target-- {
			if stale(replicas[target]) {
				return []*corev1.Pod{replicas[target]}
			}
			if isUnavailable(replicas[target], minReady, now) {
				return nil
			}
		}
		return nil
	}
	maxUnavailable := MaxUnavailable(ru.MaxUnavailable, len(replicas))
	unavailable := 0
	for _, p := range replicas {
		if isUnavailable(p, minReady, now) {
			unavailable++
		}
	}
	var out []*corev1.Pod
	for target := len(replicas) - 1; target >= updateMin && len(out) < maxUnavailable-unavailable; target-- {
		if stale(replicas[target]) {
			out = append(out, replicas[target])
		}
	}
	return out
}

// MaxUnavailable returns spec.updateStrategy.rollingUpdate.maxUnavailable as a pod count
// for replicas: nil is 1, a percentage rounds down, at least 1 (an invalid value counts as 1).
// Mirrors getStatefulSetMaxUnavailable, pkg/controller/statefulset, v1.36.3.
func MaxUnavailable(v *intstr.IntOrString, replicas int) int {
	n, err := intstr.GetScaledValueFromIntOrPercent(intstr.ValueOrDefault(v, intstr.FromInt32(1)), replicas, false)
	if err != nil || n < 1 {
		return 1
	}
	return n
}

// podRevisionFor mirrors the revision choice of newVersionedStatefulSetPod (operator
// precedence included: a rollingUpdate block with a partition counts whatever the type).
func podRevisionFor(set *appsv1.StatefulSet, ord, start int, current, update string) string {
	s := set.Spec.UpdateStrategy
	if (s.Type == appsv1.RollingUpdateStatefulSetStrategyType && s.RollingUpdate == nil && ord < start+int(set.Status.CurrentReplicas)) ||
		(s.RollingUpdate != nil && s.RollingUpdate.Partition != nil && ord < start+int(*s.RollingUpdate.Partition)) {
		return current
	}
	return update
}

// newPod is the controller's not-yet-created pod (phase empty) for ordinal.
func newPod(set *appsv1.StatefulSet, ord int, revision string) *corev1.Pod {
	p := &corev1.Pod{}
	p.Name = fmt.Sprintf("%s-%d", set.Name, ord)
	p.Namespace = set.Namespace
	p.Labels = map[string]string{}
	for k, v := range set.Spec.Template.Labels {
		p.Labels[k] = v
	}
	p.Labels[appsv1.StatefulSetPodNameLabel] = p.Name
	p.Labels[appsv1.StatefulSetRevisionLabel] = revision
	return p
}

// setStatus mirrors updateStatus and computeReplicaStatus.
func setStatus(s *appsv1.StatefulSetStatus, minReady int32, current, update string, now time.Time, pods []*corev1.Pod) {
	s.Replicas, s.ReadyReplicas, s.AvailableReplicas, s.CurrentReplicas, s.UpdatedReplicas = 0, 0, 0, 0, 0
	for _, p := range pods {
		if isCreated(p) {
			s.Replicas++
		}
		if isRunningAndReady(p) {
			s.ReadyReplicas++
			if isAvailable(p, minReady, now) {
				s.AvailableReplicas++
			}
		}
		if isCreated(p) && !isTerminating(p) {
			if revisionOf(p) == current {
				s.CurrentReplicas++
			}
			if revisionOf(p) == update {
				s.UpdatedReplicas++
			}
		}
	}
}

// completeRollingUpdate mirrors completeRollingUpdate, stateful_set_utils.go, v1.36.3.
func completeRollingUpdate(set *appsv1.StatefulSet, s *appsv1.StatefulSetStatus) {
	r := *set.Spec.Replicas
	if set.Spec.UpdateStrategy.Type == appsv1.RollingUpdateStatefulSetStrategyType &&
		s.UpdatedReplicas == r && s.ReadyReplicas == r && s.Replicas == r {
		s.CurrentReplicas = s.UpdatedReplicas
		s.CurrentRevision = s.UpdateRevision
	}
}

// inconsistentStatus mirrors inconsistentStatus, stateful_set_utils.go, v1.36.3 (the
// collision count is not compared).
func inconsistentStatus(set *appsv1.StatefulSet, s *appsv1.StatefulSetStatus) bool {
	o := set.Status
	return s.ObservedGeneration > o.ObservedGeneration || s.Replicas != o.Replicas ||
		s.CurrentReplicas != o.CurrentReplicas || s.ReadyReplicas != o.ReadyReplicas ||
		s.UpdatedReplicas != o.UpdatedReplicas || s.CurrentRevision != o.CurrentRevision ||
		s.AvailableReplicas != o.AvailableReplicas || s.UpdateRevision != o.UpdateRevision
}
