package rollout

import (
	"errors"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/rollplan/kubectl-rollplan/pkg/change"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// Verb is a `kubectl rollout` verb that patches a Deployment with a strategic merge patch.
type Verb string

const (
	VerbPause   Verb = "pause"
	VerbResume  Verb = "resume"
	VerbRestart Verb = "restart"
)

// Past returns the word kubectl prints after the object name on success: "paused",
// "resumed", "restarted".
func (v Verb) Past() string {
	switch v {
	case VerbPause:
		return "paused"
	case VerbResume:
		return "resumed"
	default:
		return "restarted"
	}
}

// ErrNothingToDo is matched by the error of a Preview* that kubectl refuses the same way:
// pause of a paused Deployment, resume of one that is not paused, restart of a paused one.
var ErrNothingToDo = errors.New("kubectl refuses this change")

// refusal is kubectl's error for a refused pause, resume or restart: `deployments.apps "web"
// is already paused` (kubectl prefixes "error: " and exits 1).
type refusal struct{ msg string }

func (e *refusal) Error() string        { return e.msg }
func (e *refusal) Is(target error) bool { return target == ErrNothingToDo }

// Action is the preview of a pause, resume or restart: the patch and the rollout plan the
// controller follows once it is applied.
type Action struct {
	Verb Verb
	// Namespace and Name of the Deployment.
	Namespace, Name string
	// Live is the Deployment as read; Result the Deployment after the patch.
	Live, Result *appsv1.Deployment
	// Patch is kubectl's strategic merge patch and rollplan's guarded form.
	Patch *Patch
	// Plan is what the controller does after the patch: for pause, what the paused
	// controller does right now (its proportional scaling and cleanup, with new pods never
	// becoming available); for resume and restart, the rollout that follows under the
	// readiness model asked for.
	Plan *planner.Plan
}

// PreviewPause computes `kubectl rollout pause` on d (ReplicaSets rss) and what the paused
// controller does right now: simulated with spec.paused=true and ReadinessNever, so only the
// writes of the next syncs appear (for a Deployment in the middle of a rollout, proportional
// scaling up to replicas+maxSurge, and revisionHistoryLimit cleanup). A paused d gives
// kubectl's error `deployments.apps "web" is already paused`, matching ErrNothingToDo.
//
// Mirrors RunPause, k8s.io/kubectl/pkg/cmd/rollout/rollout_pause.go, and defaultObjectPauser,
// v0.36.3.
func PreviewPause(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) (*Action, error) {
	after, err := change.Pause(d)
	if err != nil {
		return nil, refused(d, err)
	}
	return preview(VerbPause, d, after, rss, planner.ReadinessNever)
}

// PreviewResume computes `kubectl rollout resume` on d and the rollout that resuming starts
// (for a paused Deployment with a pending template change, the whole rollout). A d that is
// not paused gives kubectl's error `deployments.apps "web" is not paused`.
//
// Mirrors RunResume, rollout_resume.go, and defaultObjectResumer, v0.36.3.
func PreviewResume(d *appsv1.Deployment, rss []*appsv1.ReplicaSet, readiness planner.Readiness) (*Action, error) {
	after, err := change.Resume(d)
	if err != nil {
		return nil, refused(d, err)
	}
	return preview(VerbResume, d, after, rss, readiness)
}

// PreviewRestart computes `kubectl rollout restart` on d at time now (the pod template gets
// kubectl.kubernetes.io/restartedAt = now in RFC 3339, in now's zone, as kubectl writes
// time.Now()) and the rollout it starts. A paused d gives kubectl's error
// `deployments.apps "web" can't restart paused deployment (run rollout resume first)`.
//
// Mirrors RunRestart, rollout_restart.go, and defaultObjectRestarter, v0.36.3.
func PreviewRestart(d *appsv1.Deployment, rss []*appsv1.ReplicaSet, now time.Time, readiness planner.Readiness) (*Action, error) {
	after, err := change.Restart(d, now)
	if err != nil {
		return nil, refused(d, err)
	}
	return preview(VerbRestart, d, after, rss, readiness)
}

// refused words err as RunPause/RunResume/RunRestart do: `%s %q %v` with the resource
// "deployments.apps". The leading "error: " kubectl adds is left to the caller's error
// printer.
func refused(d *appsv1.Deployment, err error) error {
	return &refusal{msg: fmt.Sprintf("deployments.apps %q %v", d.Name, err)}
}

func preview(verb Verb, d, after *appsv1.Deployment, rss []*appsv1.ReplicaSet, readiness planner.Readiness) (*Action, error) {
	body, err := MergePatch(d, after)
	if err != nil {
		return nil, err
	}
	if string(body) == "{}" {
		// kubectl: "failed to create patch for web: if restart has already been triggered
		// within the past second, please wait before attempting to trigger another".
		return nil, fmt.Errorf("failed to create patch for %v: if restart has already been triggered within the past second, please wait before attempting to trigger another", d.Name)
	}
	a := &Action{Verb: verb, Namespace: d.Namespace, Name: d.Name, Live: d, Result: after,
		Patch: &Patch{Type: types.StrategicMergePatchType, Kubectl: body, ResourceVersion: d.ResourceVersion}}
	if d.ResourceVersion != "" {
		if a.Patch.Guarded, err = GuardMergePatch(body, d.ResourceVersion); err != nil {
			return nil, err
		}
	}
	if a.Plan, err = Plan(after, rss, readiness); err != nil {
		return nil, err
	}
	return a, nil
}

// Plan simulates the controller on d (the Deployment after a change) and rss, naming the
// Deployment in the error.
func Plan(d *appsv1.Deployment, rss []*appsv1.ReplicaSet, readiness planner.Readiness) (*planner.Plan, error) {
	p, err := planner.Simulate(planner.Input{Deployment: d, ReplicaSets: rss, Readiness: readiness})
	if err != nil {
		return nil, fmt.Errorf("plan the rollout of deployment %s/%s: %w", d.Namespace, d.Name, err)
	}
	return p, nil
}
