package stall

import (
	"context"
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// Read gathers Diagnose's input for rs, reading only what the state asks for:
//   - pods: the ones given (a watch cache's), or, when pods is nil, one LIST by rs's
//     selector;
//   - the ReplicaSet's events (one LIST, field selector involvedObject.kind=ReplicaSet and
//     its name), only when it lacks pods and has no ReplicaFailure condition to say why;
//   - the pods' Unhealthy events (one LIST, involvedObject.kind=Pod, reason=Unhealthy),
//     only when a pod runs its containers without being Ready;
//   - the nodes of the pods bound to one that are not Ready without a container reason (a
//     GET per node; NotFound: deleted).
//
// Errors: listing the pods. A failed read of events or nodes (forbidden, say) leaves that
// part out: the reasons are then those the pods show themselves.
func Read(ctx context.Context, client kubernetes.Interface, rs *appsv1.ReplicaSet, pods []*corev1.Pod) (Input, error) {
	in := Input{ReplicaSet: rs, Pods: pods}
	if pods == nil {
		sel, err := metav1.LabelSelectorAsSelector(rs.Spec.Selector)
		if err != nil {
			return in, fmt.Errorf("replicaset %s/%s: spec.selector: %w", rs.Namespace, rs.Name, err)
		}
		l, err := client.CoreV1().Pods(rs.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
		if err != nil {
			return in, fmt.Errorf("list pods of replicaset %s/%s: %w", rs.Namespace, rs.Name, err)
		}
		for i := range l.Items {
			in.Pods = append(in.Pods, &l.Items[i])
		}
	}
	mine := owned(rs, in.Pods)
	if needsEvents(rs) {
		in.Events = append(in.Events, listEvents(ctx, client, rs.Namespace, fields.Set{
			"involvedObject.kind": "ReplicaSet", "involvedObject.name": rs.Name})...)
	}
	unhealthy, nodes := readPodContext(ctx, client, rs.Namespace, mine)
	in.Events, in.Nodes = append(in.Events, unhealthy...), nodes
	return in, nil
}

// readPodContext reads what pods' own state does not say about them (Read's and ReadOwner's
// shared part): the Unhealthy events in ns (one LIST, involvedObject.kind=Pod,
// reason=Unhealthy), only when a pod runs its containers without being Ready; the nodes, by
// name, of the pods bound to one that are not Ready without a container reason (a GET per
// node; nil: NotFound, deleted; another failed GET leaves the node out). Nodes is nil when
// none is read.
func readPodContext(ctx context.Context, client kubernetes.Interface, ns string, pods []*corev1.Pod) ([]*corev1.Event, map[string]*corev1.Node) {
	var events []*corev1.Event
	if slices.ContainsFunc(pods, func(p *corev1.Pod) bool { return !isTrue(p, corev1.PodReady) && allRunning(p) }) {
		events = listEvents(ctx, client, ns, fields.Set{"involvedObject.kind": "Pod", "reason": Unhealthy})
	}
	var nodes map[string]*corev1.Node
	for _, p := range pods {
		name := p.Spec.NodeName
		if _, _, _, explained := containerReason(p); name == "" || explained || isTrue(p, corev1.PodReady) {
			continue
		}
		if _, done := nodes[name]; done {
			continue
		}
		n, err := client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			n = nil
		case err != nil:
			continue
		}
		if nodes == nil {
			nodes = map[string]*corev1.Node{}
		}
		nodes[name] = n
	}
	return events, nodes
}

// needsEvents reports whether rs lacks pods without a ReplicaFailure condition saying why.
func needsEvents(rs *appsv1.ReplicaSet) bool {
	for _, c := range rs.Status.Conditions {
		if c.Type == appsv1.ReplicaSetReplicaFailure && c.Status == corev1.ConditionTrue {
			return false
		}
	}
	return rs.Status.Replicas < ptr.Deref(rs.Spec.Replicas, 1)
}

// listEvents lists the events of namespace that match set (nil on any error).
func listEvents(ctx context.Context, client kubernetes.Interface, namespace string, set fields.Set) []*corev1.Event {
	l, err := client.CoreV1().Events(namespace).List(ctx, metav1.ListOptions{FieldSelector: fields.SelectorFromSet(set).String()})
	if err != nil {
		return nil
	}
	out := make([]*corev1.Event, 0, len(l.Items))
	for i := range l.Items {
		out = append(out, &l.Items[i])
	}
	return out
}
