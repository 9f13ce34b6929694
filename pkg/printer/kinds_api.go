package printer

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
)

// NewKindRolloutPlan converts the plan of a StatefulSet or DaemonSet (pipeline.KindPlan) to
// the RolloutPlan API object: workload, updateRevision(Number), podOperations,
// waitingForDelete and nodes set; the Deployment fields stay at their zero values.
func NewKindRolloutPlan(p *pipeline.KindPlan, readiness string) *v1alpha1.RolloutPlan {
	out := &v1alpha1.RolloutPlan{
		TypeMeta: metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "RolloutPlan"},
		Workload: &v1alpha1.PlanWorkload{Kind: p.Workload.Kind, Namespace: p.Workload.Namespace, Name: p.Workload.Name,
			Strategy: p.Strategy, Partition: p.Partition},
		Readiness:            readiness,
		Steps:                []v1alpha1.PlanStep{},
		Cleanup:              []v1alpha1.PlanCleanup{},
		Outcome:              p.Outcome,
		StalledReason:        p.Reason,
		Syncs:                p.Syncs,
		UpdateRevision:       p.UpdateRevision,
		UpdateRevisionNumber: p.UpdateRevisionNumber,
		PodOperations:        []v1alpha1.PlanPodOperation{},
		WaitingForDelete:     p.WaitingForDelete,
		Feasibility:          NewPlanFeasibility(p.Feasibility),
	}
	if p.Estimate != nil {
		out.Duration = p.Duration.DeepCopy() // nil: no end (a DaemonSet's OnDelete)
		out.Timing = NewPlanTiming(p.Estimate, p.MinReadySeconds)
	}
	for _, op := range p.PodOperations {
		out.PodOperations = append(out.PodOperations, v1alpha1.PlanPodOperation{Step: op.Step, Action: string(op.Action), Pod: op.Pod, Node: op.Node,
			Revision: op.Revision, RevisionNumber: op.RevisionNumber, At: op.At})
	}
	for _, n := range p.Nodes {
		out.Nodes = append(out.Nodes, v1alpha1.PlanNode{Name: n.Name, ShouldRun: n.ShouldRun, Reason: n.Reason})
	}
	return out
}
