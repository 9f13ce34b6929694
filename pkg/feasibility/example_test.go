package feasibility_test

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// A rollout of 3 pods with maxSurge 1 and maxUnavailable 0 in a namespace whose quota allows
// 3 pods, all used: the surge pod is refused and the controller can do nothing more.
func ExampleCheck() {
	d, old := rollout{surge: "1", unavailable: "0", cpu: "100m", replicas: 3}.objects()
	res, err := feasibility.Check(feasibility.Input{
		Plan: planner.Input{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{old}},
		Cluster: feasibility.Cluster{
			ResourceQuotas: []corev1.ResourceQuota{quota("compute", list("pods", "3"), list("pods", "3"))},
			LimitRanges:    []corev1.LimitRange{},
			NodeReason:     "forbidden to list nodes",
		},
		Checks: []string{feasibility.CheckQuota, feasibility.CheckCapacity},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println("checked:", res.Checked)
	fmt.Println("unchecked:", res.Unchecked)
	fmt.Printf("stalled at step %d: %s (%v)\n", res.Stall.Step, res.Stall.Reason, res.Stall.Objects)
	fmt.Println("plan with the quota:", res.Plan.Outcome, "after", len(res.Plan.Steps), "step")
	// Output:
	// checked: [quota]
	// unchecked: [{capacity forbidden to list nodes}]
	// stalled at step 1: Quota ([resourcequota/compute])
	// plan with the quota: Stalled after 1 step
}
