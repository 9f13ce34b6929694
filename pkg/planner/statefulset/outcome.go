package statefulset

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
)

// outcome classifies the world a run ends in: Complete, Partitioned, WaitingForDelete or
// Stalled (with the pod it waits for and, for an OrderedReady set held by a pod of a revision
// that is no longer the update revision, kubernetes/kubernetes#67250 named).
func outcome(w *world) (Outcome, string, string, []string) {
	set := w.set
	update := set.Status.UpdateRevision
	start := 0
	if set.Spec.Ordinals != nil {
		start = int(set.Spec.Ordinals.Start)
	}
	n := int(*set.Spec.Replicas)
	partition := 0
	if ru := set.Spec.UpdateStrategy.RollingUpdate; ru != nil && ru.Partition != nil && set.Spec.UpdateStrategy.Type == appsv1.RollingUpdateStatefulSetStrategyType {
		partition = int(*ru.Partition)
	}
	var waiting []string
	stalledOn := ""
	belowPartitionOld := false
	for o := start; o < start+n; o++ {
		name := fmt.Sprintf("%s-%d", set.Name, o)
		p, ok := w.pods[name]
		if !ok || !isRunningAndReady(p) || !isAvailable(p, set.Spec.MinReadySeconds, w.now) {
			if stalledOn == "" {
				stalledOn = name
			}
			continue
		}
		if revisionOf(p) != update {
			if set.Spec.UpdateStrategy.Type == appsv1.OnDeleteStatefulSetStrategyType {
				waiting = append(waiting, name)
			} else if o-start < partition {
				belowPartitionOld = true
			} else if stalledOn == "" {
				stalledOn = name
			}
		}
	}
	for _, p := range w.pods {
		if o := ordinal(p); (o < start || o >= start+n) && stalledOn == "" {
			stalledOn = p.Name
		}
	}
	switch {
	case stalledOn != "":
		return Stalled, stallReason(w, stalledOn), stalledOn, waiting
	case len(waiting) > 0:
		return WaitingForDelete, fmt.Sprintf("OnDelete: %d pods keep their revision until deleted", len(waiting)), "", waiting
	case belowPartitionOld:
		return Partitioned, fmt.Sprintf("the ordinals below partition %d keep revision %s", partition, set.Status.CurrentRevision), "", nil
	}
	return Complete, "", "", nil
}

func stallReason(w *world, name string) string {
	p, ok := w.pods[name]
	if !ok {
		return fmt.Sprintf("pod %s does not exist and the controller waits before creating it", name)
	}
	rev := revisionOf(p)
	if w.set.Spec.PodManagementPolicy != appsv1.ParallelPodManagement && rev != w.set.Status.UpdateRevision && !isReady(p) {
		return fmt.Sprintf("pod %s (revision %s, not the update revision %s) is not Ready and OrderedReady waits for it before replacing it: the rollout never finishes, even after a revert, until the pod is deleted (%s)",
			name, rev, w.set.Status.UpdateRevision, Issue67250)
	}
	return fmt.Sprintf("pod %s (revision %s) never becomes available", name, rev)
}
