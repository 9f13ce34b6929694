package partition

import (
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// FromPods turns the StatefulSet's pods into the drive's view: the ordinal from the name
// (NAME-ORDINAL, as getOrdinal in pkg/controller/statefulset/stateful_set_utils.go, v1.36.3;
// pods without one are skipped), the revision from the controller-revision-hash label,
// ReadySince from the Ready condition, Failed from phase Failed or a container waiting in
// CrashLoopBackOff. Terminating pods are skipped (the controller is replacing them).
func FromPods(stsName string, pods []*corev1.Pod) []Pod {
	var out []Pod
	for _, p := range pods {
		o, ok := ordinal(stsName, p.Name)
		if !ok || p.DeletionTimestamp != nil {
			continue
		}
		v := Pod{Ordinal: o, Revision: p.Labels[appsv1.ControllerRevisionHashLabelKey], Failed: p.Status.Phase == corev1.PodFailed}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
				v.ReadySince = c.LastTransitionTime.Time
			}
		}
		for _, cs := range p.Status.ContainerStatuses {
			if cs.State.Waiting != nil && cs.State.Waiting.Reason == "CrashLoopBackOff" {
				v.Failed = true
			}
		}
		out = append(out, v)
	}
	return out
}

func ordinal(stsName, podName string) (int32, bool) {
	rest, ok := strings.CutPrefix(podName, stsName+"-")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(rest, 10, 32)
	if err != nil || n < 0 {
		return 0, false
	}
	return int32(n), true
}
