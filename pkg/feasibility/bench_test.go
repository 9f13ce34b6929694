package feasibility_test

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
)

// BenchmarkCheckLargeCluster: every check on a Deployment of 50 pods in a cluster of 100
// nodes and 5,000 pods (the benchmark size).
func BenchmarkCheckLargeCluster(b *testing.B) {
	r := rollout{surge: "25%", unavailable: "25%", cpu: "100m", replicas: 50}
	var nodes []corev1.Node
	for i := range 100 {
		nodes = append(nodes, node(fmt.Sprintf("n%03d", i), "16"))
	}
	pods := r.pods("n000")
	for i := range 5000 - len(pods) {
		p := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "other", Name: fmt.Sprintf("p%d", i)},
			Spec: corev1.PodSpec{NodeName: fmt.Sprintf("n%03d", i%100), Containers: []corev1.Container{{Name: "c",
				Resources: corev1.ResourceRequirements{Requests: list("cpu", "250m", "memory", "64Mi")}}}}}
		pods = append(pods, p)
	}
	c := feasibility.Cluster{Nodes: nodes, Pods: pods, ResourceQuotas: []corev1.ResourceQuota{quota("compute", list("pods", "100"), list("pods", "50"))},
		LimitRanges: []corev1.LimitRange{}}
	in := r.input(c)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := feasibility.Check(in); err != nil {
			b.Fatal(err)
		}
	}
}
