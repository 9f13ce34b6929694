package printer

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/reload"
	"github.com/rollplan/kubectl-rollplan/pkg/reloadoneshot"
)

// NewReloadKindPlan is the RolloutPlan item of `reload -o json|yaml` for a StatefulSet or
// DaemonSet: workload (kind, namespace, name, strategy) and the Config section (each
// reference with its keys and state, the decision and its reason), the Deployment fields at
// their zero values. Its pod operations are not planned here (`preview` plans them).
func NewReloadKindPlan(k *reloadoneshot.KindTarget) *v1alpha1.RolloutPlan {
	m := k.Workload.Meta()
	out := &v1alpha1.RolloutPlan{
		TypeMeta: metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "RolloutPlan"},
		Workload: &v1alpha1.PlanWorkload{Kind: string(k.Workload.Kind()), Namespace: m.GetNamespace(), Name: m.GetName(),
			Strategy: k.Workload.UpdateStrategy()},
		Steps:   []v1alpha1.PlanStep{},
		Cleanup: []v1alpha1.PlanCleanup{},
	}
	if s := k.Workload.StatefulSet; s != nil && s.Spec.UpdateStrategy.RollingUpdate != nil && s.Spec.UpdateStrategy.RollingUpdate.Partition != nil {
		out.Workload.Partition = *s.Spec.UpdateStrategy.RollingUpdate.Partition
	}
	c := &v1alpha1.PlanConfig{References: []v1alpha1.PlanConfigReference{}, RecordedIn: string(k.Decision.RecordedIn)}
	for _, s := range k.Decision.Refs {
		r := v1alpha1.PlanConfigReference{Kind: string(s.Ref.Kind), Name: s.Ref.Name, AllKeys: s.Ref.AllKeys,
			Keys: s.Ref.Keys, Optional: s.Ref.Optional, State: string(s.State)}
		if s.State == reload.Unrecorded {
			r.State = ConfigStateUnrecorded
		}
		c.References = append(c.References, r)
	}
	switch k.Action {
	case reload.ActionRefuse:
		c.Decision, c.Reason = ConfigDecisionRefuse, k.Decision.Refusal.Error()
	case reload.ActionRestart:
		c.Decision, c.Reason = ConfigDecisionRestart, kindChanged(k.Decision)
	case reload.ActionAdopt:
		c.Decision, c.Reason = ConfigDecisionAdopt, "first sight: the current checksums are recorded on the object (annotation "+reload.AdoptedAnnotation+"); nothing restarts"
	default:
		c.Decision, c.Reason = ConfigDecisionNone, "the pods see the current content of every reference"
	}
	out.Config = c
	return out
}

// NewReloadPlanListWithKinds is NewReloadPlanList followed by one NewReloadKindPlan item per
// StatefulSet or DaemonSet, in order.
func NewReloadPlanListWithKinds(targets []*reloadoneshot.Target, plans []*planner.Plan, kinds []*reloadoneshot.KindTarget) *v1alpha1.RolloutPlanList {
	l := NewReloadPlanList(targets, plans)
	for _, k := range kinds {
		l.Items = append(l.Items, *NewReloadKindPlan(k))
	}
	return l
}
