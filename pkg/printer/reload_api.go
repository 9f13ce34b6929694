package printer

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/reload"
	"github.com/rollplan/kubectl-rollplan/pkg/reloadoneshot"
)

// The decisions of PlanConfig.Decision.
const (
	ConfigDecisionRestart = "restart"
	ConfigDecisionAdopt   = "adopt"
	ConfigDecisionRefuse  = "refuse"
	ConfigDecisionNone    = "none"
)

// The states of PlanConfigReference.State beyond reload.State's current, changed and missing.
const (
	// ConfigStatePossiblyStale: first sight, data written after the current pods were created.
	ConfigStatePossiblyStale = "possibly-stale"
	// ConfigStateUnrecorded: first sight without such evidence.
	ConfigStateUnrecorded = "unrecorded"
)

// NewReloadPlan is the RolloutPlan of one reload target: plan (the restart's rollout for a
// restart, the Deployment as it stands otherwise: reloadoneshot.Target.OutputPlan) with the Config
// section of t (NewPlanConfig).
func NewReloadPlan(t *reloadoneshot.Target, plan *planner.Plan) *v1alpha1.RolloutPlan {
	out := NewRolloutPlan(plan, nil)
	out.Config = NewPlanConfig(t)
	if plan == t.Plan {
		out.Feasibility = NewPlanFeasibility(t.Feasibility)
	}
	return out
}

// NewPlanConfig is the Config section of t: each reference with its keys and state
// (unrecorded references with first-sight evidence are possibly-stale, with that
// evidence), the decision (refuse whenever t.Refusal is set, so a paused Deployment's
// restart is refuse) and its reason. Names, keys, states and times only: never a value or a
// checksum.
func NewPlanConfig(t *reloadoneshot.Target) *v1alpha1.PlanConfig {
	evidence := map[string]reload.Evidence{}
	for _, e := range t.Assessment.Evidence {
		evidence[e.Ref] = e
	}
	c := &v1alpha1.PlanConfig{References: []v1alpha1.PlanConfigReference{}, RecordedIn: string(t.Decision.RecordedIn)}
	for _, s := range t.Decision.Refs {
		r := v1alpha1.PlanConfigReference{Kind: string(s.Ref.Kind), Name: s.Ref.Name, AllKeys: s.Ref.AllKeys,
			Keys: s.Ref.Keys, Optional: s.Ref.Optional, State: string(s.State)}
		if s.State == reload.Unrecorded {
			r.State = ConfigStateUnrecorded
			if e, ok := evidence[s.Ref.AnnotationKey()]; ok {
				r.State = ConfigStatePossiblyStale
				r.Evidence = &v1alpha1.PlanConfigEvidence{
					DataWrittenAt: apiTime(e.Written.Time), WrittenBy: e.Written.Manager,
					ReplicaSet: e.Pods.ReplicaSet, OldestPodCreatedAt: apiTime(e.Pods.OldestCreated),
				}
			}
		}
		c.References = append(c.References, r)
	}
	if t.Assessment.PossiblyStale {
		since := apiTime(t.Assessment.Since)
		c.PossiblyStaleSince = &since
	}
	c.Decision, c.Reason = configDecision(t)
	return c
}

// configDecision is the decision word of t and its one-line reason.
func configDecision(t *reloadoneshot.Target) (string, string) {
	if err := t.Refusal(); err != nil {
		return ConfigDecisionRefuse, err.Error()
	}
	switch t.Action {
	case reload.ActionRestart:
		if t.Reason == "" && !t.Decision.Stale && t.Assessment.PossiblyStale {
			return ConfigDecisionRestart, "first sight: " + t.Assessment.Summary()
		}
		return ConfigDecisionRestart, restartReason(t)
	case reload.ActionAdopt:
		return ConfigDecisionAdopt, "first sight: --adopt records the current checksums on the Deployment (annotation " + reload.AdoptedAnnotation + "); nothing restarts"
	}
	if t.Decision.FirstSight() {
		return ConfigDecisionNone, "first sight: " + t.Assessment.Summary() + "; --adopt records the checksums"
	}
	return ConfigDecisionNone, "the pods see the current content of every reference"
}

// apiTime is t as the API prints times (UTC, seconds).
func apiTime(t time.Time) metav1.Time { return metav1.NewTime(t.UTC().Truncate(time.Second)) }

// NewReloadPlanList is the RolloutPlanList of a reload: one item per target, in order
// (NewReloadPlan of each with plans[i]).
func NewReloadPlanList(targets []*reloadoneshot.Target, plans []*planner.Plan) *v1alpha1.RolloutPlanList {
	items := make([]*v1alpha1.RolloutPlan, len(targets))
	for i, t := range targets {
		items[i] = NewReloadPlan(t, plans[i])
	}
	return NewRolloutPlanList(items)
}
