package framework

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// NodeLostLabel on a node (non-empty value) makes kwok stop posting its status (stages
// node-initialize and node-heartbeat skip it, hack/cluster/kwok-stages.yaml).
const NodeLostLabel = "rollplan.test/node-lost"

// PrivateNodeKey is the label and NoSchedule taint key of a PrivateNode: only pods that
// select and tolerate it (PrivateNodeTemplate) land there.
const PrivateNodeKey = "rollplan.test/private-node"

// PrivateNode creates a kwok node named name (4 cpu, 8Gi, 110 pods) labelled and tainted
// PrivateNodeKey=name:NoSchedule, without the shared nodes' label type=kwok, so that no other
// test's pods use it (the DaemonSets of kinds_test.go tolerate every taint but select
// type=kwok); it waits (up to 30 s) until kwok marks it Ready and removes the not-ready
// taint admission put on it (the local cluster runs no node-lifecycle controller). In
// t.Cleanup it deletes the node, then the pods bound to it (grace 0: no kubelet confirms).
// Other tests still see one node more in cluster-wide reads and scheduler messages
// ("0/2 nodes are available"): call it from a test that is not parallel.
func (c *Cluster) PrivateNode(t testing.TB, name string) *corev1.Node {
	t.Helper()
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"},
			Labels: map[string]string{
				PrivateNodeKey: name, "kubernetes.io/hostname": name,
				"kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
			},
		},
		Spec: corev1.NodeSpec{Taints: []corev1.Taint{{Key: PrivateNodeKey, Value: name, Effect: corev1.TaintEffectNoSchedule}}},
		Status: corev1.NodeStatus{
			Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("8Gi"), corev1.ResourcePods: resource.MustParse("110")},
			Capacity:    corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("8Gi"), corev1.ResourcePods: resource.MustParse("110")},
		},
	}
	nodes := c.Client.CoreV1().Nodes()
	if _, err := nodes.Create(t.Context(), node, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create node %s: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		if err := nodes.Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("delete node %s: %v", name, err)
		}
		// Then its pods, until none is left (one the scheduler bound just before the node
		// went); pods the ReplicaSets create after stay unbound, which namespace deletion
		// removes at once.
		err := poll(ctx, 200*time.Millisecond, 10*time.Second, func(ctx context.Context) (bool, error) {
			pods, err := c.Client.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + name})
			if err != nil {
				return false, err
			}
			for _, p := range pods.Items {
				err := c.Client.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)})
				if err != nil && !apierrors.IsNotFound(err) {
					return false, err
				}
			}
			return len(pods.Items) == 0, nil
		})
		if err != nil {
			t.Errorf("delete the pods of node %s: %v", name, err)
		}
	})
	var got *corev1.Node
	err := poll(t.Context(), 100*time.Millisecond, 30*time.Second, func(ctx context.Context) (bool, error) {
		n, err := nodes.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if c := nodeCondition(n, corev1.NodeReady); c == nil || c.Status != corev1.ConditionTrue {
			return false, nil
		}
		var taints []corev1.Taint
		for _, tn := range n.Spec.Taints {
			if tn.Key != corev1.TaintNodeNotReady {
				taints = append(taints, tn)
			}
		}
		if len(taints) != len(n.Spec.Taints) {
			n.Spec.Taints = taints
			if n, err = nodes.Update(ctx, n, metav1.UpdateOptions{}); err != nil {
				return false, nil // a conflict with kwok: read again
			}
		}
		got = n
		return true, nil
	})
	if err != nil {
		t.Fatalf("node %s not Ready and untainted after 30s (is kwok running?): %v", name, err)
	}
	return got
}

// PrivateNodeTemplate makes the pods of tmpl select and tolerate the PrivateNode name.
func PrivateNodeTemplate(tmpl *corev1.PodTemplateSpec, name string) {
	tmpl.Spec.NodeSelector = map[string]string{PrivateNodeKey: name}
	tmpl.Spec.Tolerations = append(tmpl.Spec.Tolerations, corev1.Toleration{Key: PrivateNodeKey, Operator: corev1.TolerationOpEqual, Value: name, Effect: corev1.TaintEffectNoSchedule})
}

// LoseNode makes the node name lost as a real cluster sees it when its kubelet stops posting
// status, in the place of the node-lifecycle controller the local cluster does not run
// (k8s.io/kubernetes v1.36.3 pkg/controller/nodelifecycle tryUpdateNodeHealth and
// pkg/controller/util/node MarkPodsNotReady): kwok stops heartbeating it (NodeLostLabel),
// its Ready condition turns Unknown ("NodeStatusUnknown", "Kubelet stopped posting node
// status."), and every pod bound to it turns not Ready (Ready=False, with a
// NodeNotReady event's meaning). It returns when all of that is written.
func (c *Cluster) LoseNode(t testing.TB, name string) {
	t.Helper()
	ctx := t.Context()
	nodes := c.Client.CoreV1().Nodes()
	patch := []byte(`{"metadata":{"labels":{"` + NodeLostLabel + `":"true"}}}`)
	if _, err := nodes.Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatalf("label node %s lost: %v", name, err)
	}
	now := metav1.Now()
	err := poll(ctx, 100*time.Millisecond, 10*time.Second, func(ctx context.Context) (bool, error) {
		n, err := nodes.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for i := range n.Status.Conditions {
			cond := &n.Status.Conditions[i]
			if cond.Type == corev1.NodeReady {
				cond.Status, cond.Reason, cond.Message = corev1.ConditionUnknown, "NodeStatusUnknown", "Kubelet stopped posting node status."
				cond.LastTransitionTime = now
			}
		}
		_, err = nodes.UpdateStatus(ctx, n, metav1.UpdateOptions{})
		return err == nil, nil // a conflict with a heartbeat that was under way: again
	})
	if err != nil {
		t.Fatalf("mark node %s Ready=Unknown: %v", name, err)
	}
	pods, err := c.Client.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + name})
	if err != nil {
		t.Fatalf("list the pods of node %s: %v", name, err)
	}
	for _, p := range pods.Items {
		if err := c.markPodNotReady(ctx, p.Namespace, p.Name); err != nil {
			t.Fatal(err)
		}
	}
}

// markPodNotReady sets the pod's Ready condition False (lastTransitionTime now when it was
// True), as MarkPodsNotReady does; retried on conflicts.
func (c *Cluster) markPodNotReady(ctx context.Context, ns, name string) error {
	pods := c.Client.CoreV1().Pods(ns)
	err := poll(ctx, 100*time.Millisecond, 10*time.Second, func(ctx context.Context) (bool, error) {
		p, err := pods.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		for i := range p.Status.Conditions {
			cond := &p.Status.Conditions[i]
			if cond.Type == corev1.PodReady && cond.Status != corev1.ConditionFalse {
				cond.Status, cond.LastTransitionTime = corev1.ConditionFalse, metav1.Now()
			}
		}
		_, err = pods.UpdateStatus(ctx, p, metav1.UpdateOptions{})
		return err == nil || apierrors.IsNotFound(err), nil
	})
	if err != nil {
		return fmt.Errorf("mark pod %s/%s not Ready: %w", ns, name, err)
	}
	return nil
}

func nodeCondition(n *corev1.Node, t corev1.NodeConditionType) *corev1.NodeCondition {
	for i := range n.Status.Conditions {
		if n.Status.Conditions[i].Type == t {
			return &n.Status.Conditions[i]
		}
	}
	return nil
}
