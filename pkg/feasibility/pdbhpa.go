package feasibility

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// checkPDBs compares the strategy's disruption with every PDB that selects the Deployment's
// pods. A rolling update deletes pods without the eviction API: it can take down
// maxUnavailable pods at once (Recreate: all of them) whatever the budget says.
//
// The budget is the disruption controller's: maxUnavailable, or expected pods minus
// minAvailable, with percentages of the Deployment's replicas rounded up
// (pkg/controller/disruption, v1.36.3).
func (r *Result) checkPDBs(d *appsv1.Deployment, p *planner.Plan, c Cluster) {
	if c.PodDisruptionBudgets == nil {
		r.unchecked(CheckPDB, "%s", orReason(c.PDBReason, "poddisruptionbudgets"))
		return
	}
	r.checked(CheckPDB)
	podLabels := labels.Set(d.Spec.Template.Labels)
	disrupt, how := p.Strategy.MaxUnavailable, "maxUnavailable "+p.Strategy.MaxUnavailableSpec
	if p.Strategy.Type == appsv1.RecreateDeploymentStrategyType {
		disrupt, how = p.Replicas, "Recreate"
	}
	for _, pdb := range c.PodDisruptionBudgets {
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil || pdb.Spec.Selector == nil || !sel.Matches(podLabels) {
			continue
		}
		allowed, budget, ok := pdbAllows(pdb.Spec.MinAvailable, pdb.Spec.MaxUnavailable, p.Replicas)
		if !ok {
			r.unchecked(CheckPDB, "poddisruptionbudget/%s: budget not parsable", pdb.Name)
			continue
		}
		if disrupt > allowed {
			now := ""
			if pdb.Status.ObservedGeneration > 0 {
				now = fmt.Sprintf(", %d now (status.disruptionsAllowed)", pdb.Status.DisruptionsAllowed)
			}
			r.Findings = append(r.Findings, Finding{
				Check: CheckPDB, Severity: SeverityWarning, Object: "poddisruptionbudget/" + pdb.Name,
				Message: fmt.Sprintf("%s takes down up to %d pods at once; poddisruptionbudget/%s allows %d (%s of %d%s); a rolling update does not use evictions, and node drains are blocked meanwhile",
					how, disrupt, pdb.Name, allowed, budget, p.Replicas, now),
			})
		}
	}
}

// pdbAllows returns how many of expected pods the budget lets go at once, and the budget in words.
func pdbAllows(minAvailable, maxUnavailable *intstr.IntOrString, expected int32) (int32, string, bool) {
	switch {
	case maxUnavailable != nil:
		v, err := intstr.GetScaledValueFromIntOrPercent(maxUnavailable, int(expected), true)
		return max(0, int32(v)), "maxUnavailable " + maxUnavailable.String(), err == nil
	case minAvailable != nil:
		v, err := intstr.GetScaledValueFromIntOrPercent(minAvailable, int(expected), true)
		return max(0, expected-int32(v)), "minAvailable " + minAvailable.String(), err == nil
	}
	return expected, "no budget", true
}

// checkHPAs reports the HPAs that scale the Deployment: their bounds, a change that sets
// replicas the HPA will override, and the rollout's peak pods at the HPA's maxReplicas
// (maxReplicas + maxSurge of maxReplicas, rounded up as the controller does).
func (r *Result) checkHPAs(d *appsv1.Deployment, live *appsv1.Deployment, p *planner.Plan, c Cluster) {
	if c.HorizontalPodAutoscalers == nil {
		r.unchecked(CheckHPA, "%s", orReason(c.HPAReason, "horizontalpodautoscalers"))
		return
	}
	r.checked(CheckHPA)
	for _, h := range c.HorizontalPodAutoscalers {
		ref := h.Spec.ScaleTargetRef
		if ref.Kind != "Deployment" || ref.Name != d.Name {
			continue
		}
		obj := "horizontalpodautoscaler/" + h.Name
		minR := ptr.Deref(h.Spec.MinReplicas, 1)
		r.Findings = append(r.Findings, Finding{Check: CheckHPA, Severity: SeverityInfo, Object: obj,
			Message: fmt.Sprintf("%s scales this Deployment: min %d, max %d, current %d, desired %d",
				obj, minR, h.Spec.MaxReplicas, h.Status.CurrentReplicas, h.Status.DesiredReplicas)})
		if live != nil && ptr.Deref(live.Spec.Replicas, 1) != p.Replicas {
			r.Findings = append(r.Findings, Finding{Check: CheckHPA, Severity: SeverityWarning, Object: obj,
				Message: fmt.Sprintf("the change sets replicas %d -> %d; %s overrides it at its next sync (within %d..%d)",
					ptr.Deref(live.Spec.Replicas, 1), p.Replicas, obj, minR, h.Spec.MaxReplicas)})
		}
		peak := h.Spec.MaxReplicas
		if p.Strategy.Type != appsv1.RecreateDeploymentStrategyType {
			surge := intstr.Parse(p.Strategy.MaxSurgeSpec)
			if v, err := intstr.GetScaledValueFromIntOrPercent(&surge, int(h.Spec.MaxReplicas), true); err == nil {
				peak += int32(v)
			}
		}
		r.Findings = append(r.Findings, Finding{Check: CheckHPA, Severity: SeverityInfo, Object: obj,
			Message: fmt.Sprintf("peak pods: %d in this plan; %d if %s has scaled to maxReplicas %d when the rollout starts",
				peakPods(p), peak, obj, h.Spec.MaxReplicas)})
	}
}

// peakPods is the most pods the plan's ReplicaSets ask for at once.
func peakPods(p *planner.Plan) int32 {
	var peak int32
	for _, n := range p.Initial {
		peak += n
	}
	for _, s := range p.Steps {
		peak = max(peak, s.Total)
	}
	return peak
}
