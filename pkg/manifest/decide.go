package manifest

import (
	"fmt"
	"maps"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// Change is what applying a manifest set does to one Deployment.
type Change string

const (
	// ChangeCreate: no such Deployment is live; applying creates it, and its first rollout
	// creates its first ReplicaSet, scaled up from 0.
	ChangeCreate Change = "Create"
	// ChangeUpdate: the live Deployment changes (its spec, labels or annotations).
	ChangeUpdate Change = "Update"
	// ChangeNone: applying leaves the live Deployment as it is (the plan shows a rollout
	// already in flight, or NoChange).
	ChangeNone Change = "NoChange"
)

// Classify says what desired (the Deployment the API server would store after the apply)
// does to live (nil: not live). Equal means apiequality.Semantic.DeepEqual of spec, labels
// and annotations, ignoring kubectl's last-applied-configuration annotation (rewritten by
// every apply): what would change the stored object a reader sees. Mirrors the
// Deployment strategy's generation rule (PrepareForUpdate, pkg/registry/apps/deployment/
// strategy.go, v1.36.3) widened to metadata, so a label-only edit is an Update whose plan
// is NoChange.
func Classify(live, desired *appsv1.Deployment) Change {
	if live == nil {
		return ChangeCreate
	}
	if apiequality.Semantic.DeepEqual(live.Spec, desired.Spec) &&
		apiequality.Semantic.DeepEqual(live.Labels, desired.Labels) &&
		apiequality.Semantic.DeepEqual(withoutLastApplied(live.Annotations), withoutLastApplied(desired.Annotations)) {
		return ChangeNone
	}
	return ChangeUpdate
}

func withoutLastApplied(a map[string]string) map[string]string {
	out := maps.Clone(a)
	delete(out, corev1.LastAppliedConfigAnnotation)
	if len(out) == 0 {
		return nil
	}
	return out
}

// Decide plans one Deployment of a set: live is its state (nil: a create), desired the
// Deployment the apply leaves (server-defaulted, or client-defaulted offline). desired keeps
// live's status, so the planner starts where the cluster is. It returns the change, the plan
// and warnings (orphan ReplicaSets the controller adopts). Pure.
//
// Errors: the planner's (a desired Deployment the controller could not settle).
func Decide(live *cluster.State, desired *appsv1.Deployment, readiness planner.Readiness) (Change, *planner.Plan, []string, error) {
	var liveD *appsv1.Deployment
	var warnings []string
	if live != nil {
		liveD = live.Deployment
		for _, rs := range live.Orphans {
			warnings = append(warnings, fmt.Sprintf("ReplicaSet %s has no owner: the controller adopts it at its next sync", rs.Name))
		}
	}
	plan, err := planner.Simulate(PlannerInput(live, desired, readiness))
	if err != nil {
		return "", nil, nil, err
	}
	return Classify(liveD, desired), plan, warnings, nil
}

// PlannerInput is the planner's input of one Deployment of a set (Decide's): desired with
// live's status and live's ReplicaSets (none for a create, live nil). Now stays zero: the
// change is made after the preview (see preview). Pure; desired is not modified.
func PlannerInput(live *cluster.State, desired *appsv1.Deployment, readiness planner.Readiness) planner.Input {
	in := planner.Input{Deployment: desired, Readiness: readiness}
	if live != nil {
		d := desired.DeepCopy()
		d.Status = live.Deployment.Status
		in.Deployment, in.ReplicaSets = d, live.ReplicaSets
	}
	return in
}
