package pipeline

import (
	"context"
	"time"

	"k8s.io/client-go/kubernetes"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
)

// ActionRun is `kubectl rollplan pause`, `resume` or `restart` of Deployments as its command
// configures it: read each Deployment and preview kubectl's patch and the controller's plan
// (Preview), then send the guarded patch through the Sink (Apply). It prints nothing: the
// command hands the ActionItem to pkg/printer. The patches are kubectl's
// (k8s.io/kubectl/pkg/polymorphichelpers objectpauser.go, objectresumer.go,
// objectrestarter.go, v0.36.3) through rollout.PreviewPause/Resume/Restart.
type ActionRun struct {
	Verb rollout.Verb
	// Readiness is the plan's readiness model (ActionReadiness: never for pause).
	Readiness Readiness
	// DryRun is --dry-run: server sends the patch with dryRun=All in Preview.
	DryRun cmdutil.DryRunStrategy
	// Sink receives the patches (nil: NewSink(DryRun, FieldManager)).
	Sink         Sink
	FieldManager string
	// Checks are --checks, run on the plan of resume and restart (nil: none).
	Checks *WriteChecks
	// Now is the clock of restart's restartedAt (truncated to the second).
	Now func() time.Time
	// Held, when set, is asked first of every Deployment read: whether it is one the command
	// handles apart (resume of a Deployment drive holds), having shown its preview itself.
	Held func(state *cluster.State, ref rollout.Object) (bool, error)
}

// ActionItem is one Deployment's previewed pause, resume or restart: the Action, or for a
// Deployment Held took, nothing more (Held).
type ActionItem struct {
	Client kubernetes.Interface
	Ref    rollout.Object
	State  *cluster.State
	Action *rollout.Action
	Held   bool
	// Feasibility is the checks' result on the action's plan (nil: nothing to say).
	Feasibility *feasibility.Result
}

// ActionReadiness is the readiness of verb's plan: never for pause (a paused Deployment
// starts no rollout), else readiness (--readiness).
func ActionReadiness(verb rollout.Verb, readiness string) Readiness {
	if verb == rollout.VerbPause {
		return planner.ReadinessNever
	}
	return planner.Readiness(readiness)
}

// Preview reads the Deployment ref (LoadLive: one GET, one LIST, retried), previews the verb
// (with --dry-run=server, from the Deployment the server returns) and runs the checks on its
// plan. Errors: the read's, the preview's (kubectl's refusals, one line), the server's, the
// checks'; Held's with its item.
func (r *ActionRun) Preview(ctx context.Context, client kubernetes.Interface, ref rollout.Object) (*ActionItem, error) {
	state, err := LoadLive(ctx, client, ref.Namespace, ref.Name)
	if err != nil {
		return nil, err
	}
	it := &ActionItem{Client: client, Ref: ref, State: state}
	if r.Held != nil {
		if it.Held, err = r.Held(state, ref); it.Held || err != nil {
			return it, err
		}
	}
	a, err := r.preview(state)
	if err != nil {
		return nil, err
	}
	if r.DryRun == cmdutil.DryRunServer {
		server, err := r.sink().Deployment(ctx, client, state.Deployment, a.Patch)
		if err != nil {
			return nil, err
		}
		a.Result = server
		if a.Plan, err = rollout.Plan(server, state.ReplicaSets, r.Readiness); err != nil {
			return nil, err
		}
	}
	if r.Verb != rollout.VerbPause && r.Checks != nil && a.Plan != nil && a.Result != nil {
		if it.Feasibility, a.Plan, err = r.Checks.Check(ctx, client, r.Readiness, state, a.Result, a.Plan); err != nil {
			return nil, err
		}
	}
	it.Action = a
	return it, nil
}

// Apply writes one previewed Deployment (nothing for a dry run) and returns kubectl's word
// ("paused", "resumed", "restarted"). A Held item is the command's to write.
func (r *ActionRun) Apply(ctx context.Context, it *ActionItem) (string, error) {
	if r.DryRun != cmdutil.DryRunServer { // the server's dry run was the preview's
		if _, err := r.sink().Deployment(ctx, it.Client, it.State.Deployment, it.Action.Patch); err != nil {
			return "", err
		}
	}
	return r.Verb.Past(), nil
}

func (r *ActionRun) preview(state *cluster.State) (*rollout.Action, error) {
	switch r.Verb {
	case rollout.VerbPause:
		return rollout.PreviewPause(state.Deployment, state.ReplicaSets)
	case rollout.VerbResume:
		return rollout.PreviewResume(state.Deployment, state.ReplicaSets, r.Readiness)
	default:
		return rollout.PreviewRestart(state.Deployment, state.ReplicaSets, r.Now().Truncate(time.Second), r.Readiness)
	}
}

func (r *ActionRun) sink() Sink {
	if r.Sink != nil {
		return r.Sink
	}
	return NewSink(r.DryRun, r.FieldManager)
}
