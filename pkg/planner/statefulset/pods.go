package statefulset

import (
	"regexp"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

var podNameRE = regexp.MustCompile(`(.*)-([0-9]+)$`)

// ordinal returns the pod's ordinal, -1 if its name is not "<parent>-<n>".
// Mirrors getParentNameAndOrdinal, pkg/controller/statefulset, v1.36.3.
func ordinal(pod *corev1.Pod) int {
	m := podNameRE.FindStringSubmatch(pod.Name)
	if m == nil {
		return -1
	}
	i, err := strconv.ParseInt(m[2], 10, 32)
	if err != nil {
		return -1
	}
	return int(i)
}

func revisionOf(pod *corev1.Pod) string { return pod.Labels[appsv1.StatefulSetRevisionLabel] }

func readyCondition(pod *corev1.Pod) *corev1.PodCondition {
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == corev1.PodReady {
			return &pod.Status.Conditions[i]
		}
	}
	return nil
}

func isReady(pod *corev1.Pod) bool {
	c := readyCondition(pod)
	return c != nil && c.Status == corev1.ConditionTrue
}

func isCreated(pod *corev1.Pod) bool     { return pod.Status.Phase != "" }
func isTerminating(pod *corev1.Pod) bool { return pod.DeletionTimestamp != nil }
func isFailed(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded
}
func isRunningAndReady(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodRunning && isReady(pod)
}

// isAvailable mirrors podutil.IsPodAvailable, pkg/api/v1/pod, v1.36.3: Ready, and Ready since
// at least minReadySeconds (lastTransitionTime + minReadySeconds <= now).
func isAvailable(pod *corev1.Pod, minReadySeconds int32, now time.Time) bool {
	if !isReady(pod) {
		return false
	}
	c := readyCondition(pod)
	return minReadySeconds == 0 || (!c.LastTransitionTime.IsZero() &&
		c.LastTransitionTime.Add(time.Duration(minReadySeconds)*time.Second).Compare(now) <= 0)
}

func isUnavailable(pod *corev1.Pod, minReadySeconds int32, now time.Time) bool {
	return !isAvailable(pod, minReadySeconds, now) || isTerminating(pod)
}

// availableAt returns when a Ready pod becomes available, the zero time if it is not Ready.
func availableAt(pod *corev1.Pod, minReadySeconds int32) time.Time {
	if !isReady(pod) {
		return time.Time{}
	}
	return readyCondition(pod).LastTransitionTime.Add(time.Duration(minReadySeconds) * time.Second)
}
