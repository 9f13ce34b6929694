package daemonset_test

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/planner/daemonset"
)

// A DaemonSet on three nodes, one of them tainted, its pods on a first revision, and a new
// image with maxSurge 1: per node, the new pod first, the old one once the new one is
// available (readiness batched: sync 2 and 5 make nothing, then the new pods are available),
// one node at a time; the tainted node gets no pod. Which of a and b goes first is the
// controller's random node order (the plan takes them by name).
func ExampleSimulate() {
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "ns"},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "agent"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "agent", Image: "agent:v2"}}},
			},
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxSurge: ptr.To(intstr.FromInt32(1)), MaxUnavailable: ptr.To(intstr.FromInt32(0))}},
		},
	}
	old := &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{Name: "agent-v1", Labels: map[string]string{appsv1.DefaultDaemonSetUniqueLabelKey: "v1"}},
		Data:       runtimeRaw(`{"spec":{"template":{"$patch":"replace"}}}`),
		Revision:   1,
	}
	in := daemonset.Input{DaemonSet: ds, Revisions: []*appsv1.ControllerRevision{old}}
	for _, name := range []string{"a", "b", "gpu"} {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
		if name == "gpu" {
			n.Spec.Taints = []corev1.Taint{{Key: "gpu", Effect: corev1.TaintEffectNoSchedule}}
			in.Nodes = append(in.Nodes, n)
			continue
		}
		in.Nodes = append(in.Nodes, n)
		in.Pods = append(in.Pods, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "agent-" + name, Labels: map[string]string{appsv1.DefaultDaemonSetUniqueLabelKey: "v1"}},
			Spec:       corev1.PodSpec{NodeName: name},
			Status:     corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}},
		})
	}
	plan, err := daemonset.Simulate(in)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: revision %d, %s\n", plan.Outcome, plan.UpdateRevision.Number, plan.UpdateRevision.Name)
	for _, op := range plan.PodOperations {
		fmt.Printf("node %s, sync %d: %s %q (revision %d)\n", op.Node, op.Step, op.Action, op.Pod, op.RevisionNumber)
	}
	for _, s := range plan.Steps {
		fmt.Printf("sync %d: %d created, %d deleted; %d nodes unavailable, %d surging\n", s.Step, s.Creates, s.Deletes, s.Unavailable, s.Surging)
	}
	for _, n := range plan.Nodes {
		if !n.ShouldRun {
			fmt.Printf("node %s: no new pod: %s\n", n.Name, n.Reason)
		}
	}
	fmt.Println("node order matters from sync", plan.OrderMattersFrom)
	// Output:
	// Complete: revision 2, agent-85688477c5
	// node a, sync 1: Create "" (revision 2)
	// node a, sync 3: Delete "agent-a" (revision 1)
	// node b, sync 4: Create "" (revision 2)
	// node b, sync 6: Delete "agent-b" (revision 1)
	// sync 1: 1 created, 0 deleted; 0 nodes unavailable, 1 surging
	// sync 3: 0 created, 1 deleted; 0 nodes unavailable, 0 surging
	// sync 4: 1 created, 0 deleted; 0 nodes unavailable, 1 surging
	// sync 6: 0 created, 1 deleted; 0 nodes unavailable, 0 surging
	// node gpu: no new pod: taint gpu:NoSchedule not tolerated
	// node order matters from sync 1
}

func runtimeRaw(s string) runtime.RawExtension { return runtime.RawExtension{Raw: []byte(s)} }
