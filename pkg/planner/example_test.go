package planner_test

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/rollplan/kubectl-rollplan/pkg/deployutil"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// fixture builds a Deployment "web" of replicas pods with image, and one old ReplicaSet
// (revision 1, nginx:1.18) holding every pod, all available.
func fixture(replicas int32, surge, unavailable string, image string) (*appsv1.Deployment, []*appsv1.ReplicaSet) {
	tmpl := func(img string) corev1.PodTemplateSpec {
		return corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: img}}},
		}
	}
	ms, mu := intstr.Parse(surge), intstr.Parse(unavailable)
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "d-uid"},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: tmpl(image),
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &ms, MaxUnavailable: &mu}},
		},
	}
	oldT := tmpl("nginx:1.18")
	hash := planner.ComputeHash(&oldT, nil)
	oldT.Labels["pod-template-hash"] = hash
	r := replicas
	old := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "web-" + hash, Namespace: "default",
			CreationTimestamp: metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)),
			Annotations: map[string]string{deployutil.RevisionAnnotation: "1",
				deployutil.DesiredReplicasAnnotation: fmt.Sprint(replicas), deployutil.MaxReplicasAnnotation: fmt.Sprint(replicas + 3)}},
		Spec:   appsv1.ReplicaSetSpec{Replicas: &r, Template: oldT},
		Status: appsv1.ReplicaSetStatus{Replicas: r, AvailableReplicas: r, ReadyReplicas: r},
	}
	return d, []*appsv1.ReplicaSet{old}
}

func Example() {
	d, rss := fixture(10, "25%", "25%", "nginx:1.19")
	plan, err := planner.Simulate(planner.Input{Deployment: d, ReplicaSets: rss, Readiness: planner.ReadinessNever})
	if err != nil {
		panic(err)
	}
	for _, st := range plan.Steps {
		role := "old"
		if plan.ReplicaSets[st.ReplicaSet].New {
			role = "new"
		}
		fmt.Printf("sync %d: %s %d -> %d %v\n", st.Sync, role, st.From, st.To, st.Replicas)
	}
	fmt.Println(plan.Outcome, plan.NewReplicaSet.Revision)
	// Output:
	// sync 1: new 0 -> 3 [10 3]
	// sync 1: old 10 -> 8 [8 3]
	// sync 2: new 3 -> 5 [8 5]
	// Stalled 2
}
