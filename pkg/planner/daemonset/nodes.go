package daemonset

import (
	"fmt"

	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	schedulingcorev1 "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
)

// enableComparisonOperators is the TaintTolerationComparisonOperators gate: alpha, off by
// default in v1.36.3.
const enableComparisonOperators = false

// ShouldRun reports whether a new pod of ds may start on node (shouldRun) and whether a pod
// already there may stay (shouldContinueRunning), and, when not shouldRun, why in one
// phrase. It judges the pod the controller would create: the template with nodeName set to
// the node and the tolerations the controller adds (AddOrUpdateDaemonPodTolerations), by
// spec.nodeName, the required node affinity and nodeSelector
// (component-helpers' nodeaffinity), and the NoSchedule and NoExecute taints; a pod whose
// only untolerated taints are NoSchedule ones continues running.
//
// Mirrors NodeShouldRunDaemonPod and predicates, pkg/controller/daemon/daemon_controller.go,
// v1.36.3.
func ShouldRun(node *corev1.Node, ds *appsv1.DaemonSet) (shouldRun, shouldContinueRunning bool, reason string) {
	pod := newPod(ds, node.Name)
	if name := ds.Spec.Template.Spec.NodeName; name != "" && name != node.Name {
		return false, false, fmt.Sprintf("spec.template.spec.nodeName is %s", name)
	}
	// Parsing errors are ignored, as upstream does for backwards compatibility.
	if fits, _ := nodeaffinity.GetRequiredNodeAffinity(pod).Match(node); !fits {
		return false, false, "nodeSelector or required node affinity does not match"
	}
	logger := logr.Discard()
	taint, untolerated := schedulingcorev1.FindMatchingUntoleratedTaint(logger, node.Spec.Taints, pod.Spec.Tolerations, func(t *corev1.Taint) bool {
		return t.Effect == corev1.TaintEffectNoExecute || t.Effect == corev1.TaintEffectNoSchedule
	}, enableComparisonOperators)
	if !untolerated {
		return true, true, ""
	}
	_, noExecute := schedulingcorev1.FindMatchingUntoleratedTaint(logger, node.Spec.Taints, pod.Spec.Tolerations, func(t *corev1.Taint) bool {
		return t.Effect == corev1.TaintEffectNoExecute
	}, enableComparisonOperators)
	return false, !noExecute, fmt.Sprintf("taint %s not tolerated", taint.ToString())
}

// newPod is the pod the controller judges a node with. Mirrors NewPod,
// pkg/controller/daemon/daemon_controller.go, v1.36.3.
func newPod(ds *appsv1.DaemonSet, nodeName string) *corev1.Pod {
	pod := &corev1.Pod{Spec: *ds.Spec.Template.Spec.DeepCopy(), ObjectMeta: ds.Spec.Template.ObjectMeta}
	pod.Namespace = ds.Namespace
	pod.Spec.NodeName = nodeName
	addDaemonTolerations(&pod.Spec)
	return pod
}

// addDaemonTolerations adds the tolerations every DaemonSet pod gets: not-ready and
// unreachable (NoExecute); disk-, memory- and PID-pressure and unschedulable (NoSchedule);
// network-unavailable (NoSchedule) for a hostNetwork pod. Mirrors
// AddOrUpdateDaemonPodTolerations, pkg/controller/daemon/util/daemonset_util.go, v1.36.3.
func addDaemonTolerations(spec *corev1.PodSpec) {
	add := func(key string, effect corev1.TaintEffect) {
		addOrUpdateToleration(spec, &corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: effect})
	}
	add(corev1.TaintNodeNotReady, corev1.TaintEffectNoExecute)
	add(corev1.TaintNodeUnreachable, corev1.TaintEffectNoExecute)
	add(corev1.TaintNodeDiskPressure, corev1.TaintEffectNoSchedule)
	add(corev1.TaintNodeMemoryPressure, corev1.TaintEffectNoSchedule)
	add(corev1.TaintNodePIDPressure, corev1.TaintEffectNoSchedule)
	add(corev1.TaintNodeUnschedulable, corev1.TaintEffectNoSchedule)
	if spec.HostNetwork {
		add(corev1.TaintNodeNetworkUnavailable, corev1.TaintEffectNoSchedule)
	}
}

// addOrUpdateToleration replaces the toleration that matches t (same key, operator, value
// and effect) or appends t. Mirrors AddOrUpdateTolerationInPodSpec,
// pkg/apis/core/v1/helper/helpers.go, v1.36.3.
func addOrUpdateToleration(spec *corev1.PodSpec, t *corev1.Toleration) {
	var out []corev1.Toleration
	updated := false
	for i := range spec.Tolerations {
		if t.MatchToleration(&spec.Tolerations[i]) {
			if apiequality.Semantic.DeepEqual(*t, spec.Tolerations[i]) {
				return
			}
			out = append(out, *t)
			updated = true
			continue
		}
		out = append(out, spec.Tolerations[i])
	}
	if !updated {
		out = append(out, *t)
	}
	spec.Tolerations = out
}

// targetNode is the node a pod of the DaemonSet belongs to: spec.nodeName, or for an
// unscheduled pod the single value of its metadata.name matchFields node affinity (the
// controller creates pods that way); "" when neither names one. Mirrors GetTargetNodeName,
// pkg/controller/daemon/util/daemonset_util.go, v1.36.3.
func targetNode(pod *corev1.Pod) string {
	if pod.Spec.NodeName != "" {
		return pod.Spec.NodeName
	}
	a := pod.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return ""
	}
	for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		for _, exp := range term.MatchFields {
			if exp.Key == metav1.ObjectNameField && exp.Operator == corev1.NodeSelectorOpIn {
				if len(exp.Values) != 1 {
					return ""
				}
				return exp.Values[0]
			}
		}
	}
	return ""
}

// NewNodePod returns the pod the controller creates for ds on nodeName, as quota admission
// and the scheduler see it: the template, the tolerations every DaemonSet pod gets
// (AddOrUpdateDaemonPodTolerations) and the required node affinity replaced by one term
// matching the node's name (util.ReplaceDaemonSetPodNodeNameNodeAffinity), so the scheduler
// can place it on that node only. Mirrors syncNodes' pod template,
// pkg/controller/daemon/daemon_controller.go, v1.36.3.
func NewNodePod(ds *appsv1.DaemonSet, nodeName string) *corev1.Pod {
	pod := &corev1.Pod{Spec: *ds.Spec.Template.Spec.DeepCopy(), ObjectMeta: *ds.Spec.Template.ObjectMeta.DeepCopy()}
	pod.Namespace = ds.Namespace
	addDaemonTolerations(&pod.Spec)
	term := corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{{
		Key: metav1.ObjectNameField, Operator: corev1.NodeSelectorOpIn, Values: []string{nodeName}}}}
	if pod.Spec.Affinity == nil {
		pod.Spec.Affinity = &corev1.Affinity{}
	}
	if pod.Spec.Affinity.NodeAffinity == nil {
		pod.Spec.Affinity.NodeAffinity = &corev1.NodeAffinity{}
	}
	pod.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{term}}
	return pod
}
