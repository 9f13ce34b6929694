package reloadoneshot

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/deployutil"
	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/reload"
	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
)

// Target is one Deployment assessed for a reload: what its pods see, what reload does
// with it, and the restart's rollout plan.
type Target struct {
	// State is the Deployment and the ReplicaSets its controller claims, as read.
	State *cluster.State
	// Decision is reload.Decide of the Deployment and the objects read.
	Decision reload.Decision
	// Assessment is reload.AssessFirstSight (zero unless Decision.FirstSight()).
	Assessment reload.Assessment
	// Action is reload.Choose's.
	Action reload.Action
	// Desired is the Deployment after the restart (reload.Restarted), for ActionRestart.
	Desired *appsv1.Deployment
	// Plan is the planner's plan of the restart's rollout, for ActionRestart.
	Plan *planner.Plan
	// Feasibility is the feasibility checks' outcome on Plan (Check; nil when none ran or they
	// had nothing to say).
	Feasibility *feasibility.Result
	// Reason, when set, says why it restarts instead of the decision's changed references
	// (a preview of config manifests: "would see a changed key of configmap/app").
	Reason string
}

// Name is "namespace/name".
func (t *Target) Name() string { return t.State.Deployment.Namespace + "/" + t.State.Deployment.Name }

// AssessOptions say how Assess decides and plans.
type AssessOptions struct {
	// Adopt is --adopt: record the checksums of first-sight Deployments, restart nothing.
	Adopt bool
	// Readiness is the planner's readiness model for the restart plans.
	Readiness planner.Readiness
}

// Assess decides, for each state (in order), what a reload does: it reads the objects the
// pod template references (config, shared across states; nil: a new one), and for a
// Deployment at first sight the oldest pod of its current ReplicaSet (one LIST of pods),
// then plans each restart. Errors: a read's (one line naming the object) or a plan's.
func Assess(ctx context.Context, client kubernetes.Interface, config *cluster.Config, states []*cluster.State, o AssessOptions) ([]*Target, error) {
	if config == nil {
		config = cluster.NewConfig(client)
	}
	var out []*Target
	for _, st := range states {
		t, err := assessOne(ctx, client, config, st, o)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

func assessOne(ctx context.Context, client kubernetes.Interface, config *cluster.Config, st *cluster.State, o AssessOptions) (*Target, error) {
	dep := st.Deployment
	objects, writes, err := config.Read(ctx, dep)
	if err != nil {
		return nil, err
	}
	t := &Target{State: st, Decision: reload.Decide(dep, objects)}
	if t.Decision.FirstSight() {
		pods := reload.Pods{}
		if rs := deployutil.FindNewReplicaSet(dep, st.ReplicaSets); rs != nil {
			if pods, err = cluster.OldestPod(ctx, client, rs); err != nil {
				return nil, err
			}
		}
		t.Assessment = reload.AssessFirstSight(t.Decision, pods, writes)
	}
	t.Action = reload.Choose(t.Decision, t.Assessment, o.Adopt)
	if t.Action == reload.ActionRestart {
		t.Desired = reload.Restarted(dep, t.Decision.Checksums)
		if t.Plan, err = rollout.Plan(t.Desired, st.ReplicaSets, o.Readiness); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// Refusal is why nothing may be written for t, or nil: a non-optional reference missing
// (Decision.Refusal), or a restart of a paused Deployment (kubectl's rollout restart refuses
// it too: the controller would not roll it out until resumed).
func (t *Target) Refusal() error {
	if t.Decision.Refused() {
		return t.Decision.Refusal
	}
	if t.Action == reload.ActionRestart {
		return reload.PausedRefusal(t.State.Deployment)
	}
	return nil
}

// OutputPlan is the plan a RolloutPlan of t carries (`reload -o`): the restart's rollout
// (Plan) when t restarts and nothing refuses it; otherwise the Deployment as it stands,
// since reload writes no template change (the rest of a rollout in flight, or NoChange;
// planned under readiness). Errors: the planner's.
func (t *Target) OutputPlan(readiness planner.Readiness) (*planner.Plan, error) {
	if t.Action == reload.ActionRestart && t.Plan != nil && t.Refusal() == nil {
		return t.Plan, nil
	}
	return rollout.Plan(t.State.Deployment, t.State.ReplicaSets, readiness)
}
