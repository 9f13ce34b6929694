package drive

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kubectl/pkg/util/podutils"
)

// unavailablePods lists the pods of ReplicaSet name that are not ready, with why.
func (d *Driver) unavailablePods(ctx context.Context, name string) []string {
	rs := d.view.ReplicaSet(name)
	if rs == nil {
		return nil
	}
	sel, err := metav1.LabelSelectorAsSelector(rs.Spec.Selector)
	if err != nil {
		return nil
	}
	pods, err := d.client.CoreV1().Pods(rs.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return []string{fmt.Sprintf("(list pods: %v)", err)}
	}
	var out []string
	for _, p := range pods.Items {
		if p.DeletionTimestamp != nil || podutils.IsPodReady(&p) {
			continue
		}
		out = append(out, fmt.Sprintf("%s: %s", p.Name, podProblem(&p)))
	}
	return out
}

// podProblem says in a few words why p is not ready.
func podProblem(p *corev1.Pod) string {
	for _, cs := range p.Status.ContainerStatuses {
		if w := cs.State.Waiting; w != nil && w.Reason != "" {
			return fmt.Sprintf("%s, container %s waiting: %s %s", p.Status.Phase, cs.Name, w.Reason, w.Message)
		}
		if t := cs.State.Terminated; t != nil {
			return fmt.Sprintf("%s, container %s terminated: %s (exit %d)", p.Status.Phase, cs.Name, t.Reason, t.ExitCode)
		}
	}
	for _, c := range p.Status.Conditions {
		if c.Status != corev1.ConditionTrue && (c.Reason != "" || c.Message != "") {
			return strings.TrimSpace(fmt.Sprintf("%s, %s: %s %s", p.Status.Phase, c.Type, c.Reason, c.Message))
		}
	}
	if p.Spec.NodeName == "" {
		return fmt.Sprintf("%s, not scheduled", p.Status.Phase)
	}
	return fmt.Sprintf("%s, not ready", p.Status.Phase)
}
