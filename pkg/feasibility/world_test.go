package feasibility

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestSchedulePicksMostRoom(t *testing.T) {
	mk := func(name, cpu string) corev1.Node {
		return corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("4Gi"), corev1.ResourcePods: resource.MustParse("10")}}}
	}
	pod := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c",
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}}}}}
	// a: 4 cpu, 2 used (50% free after the pod: 25%); b: 2 cpu, empty (50% after): b wins;
	// then a (25%) against b (0%): a; then a tie at 0%: the first by name, a.
	busy := corev1.Pod{Spec: corev1.PodSpec{NodeName: "a", Containers: pod.Spec.Containers}}
	busy2 := busy
	w := newWorld([]string{"rs"}, map[string]*corev1.Pod{"rs": pod}, nil, nil,
		[]corev1.Node{mk("a", "4"), mk("b", "2")}, []corev1.Pod{busy, busy2}, true)
	var got []string
	for range 3 {
		p := &podState{pod: pod}
		w.schedule(p)
		if p.node == nil {
			got = append(got, "Pending")
			continue
		}
		got = append(got, p.node.Node.Name)
	}
	want := []string{"b", "a", "a"}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("placements %v, want %v", got, want)
		}
	}
}
