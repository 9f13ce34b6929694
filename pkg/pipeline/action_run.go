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

// HeldOperation is the result word of resume on a Deployment drive holds.
const HeldOperation = "handed back by drive"

// ActionView is what ActionCommand shows (printer.ActionView): each Deployment's preview,
// and with -o over several Deployments their plans together.
type ActionView interface {
	WritesView
	// Preview prints one previewed action: the human form, or with -o its RolloutPlan (one
	// Deployment; several are printed by Plans).
	Preview(it *ActionItem) error
	// Plans prints the plans of several Deployments as one list (-o).
	Plans(items []*ActionItem) error
}

// ActionCommand is `kubectl rollplan pause`, `resume` or `restart` over a selection: each
// Deployment read and previewed (ActionRun.Preview, the view's Preview), one confirmation,
// then kubectl's guarded patch of each (ActionRun.Apply), as RunWrites composes them. A
// Deployment drive holds (ActionRun.Held took it) is handed back by HandBack instead.
type ActionCommand struct {
	*ActionRun
	Writes *Writes
	// Plans prints the plans of several Deployments together (-o), after all previews.
	Plans bool
	// FailOnStall refuses an action whose plan stalls (StallError).
	FailOnStall bool
	// HandBack writes the hand-back of a held Deployment (nil: none is held).
	HandBack func(ctx context.Context, client kubernetes.Interface, ref rollout.Object) error
	View     ActionView
}

// Run runs the command. Errors: RunWrites'; for one Deployment its own (kubectl's refusal,
// StallError, the server's). A nil ctx is context.Background().
func (c *ActionCommand) Run(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	b := rollout.Batch[*ActionItem]{Preview: c.previewOne, Apply: c.apply}
	if c.Writes.Several && c.Plans {
		b.Previewed = c.View.Plans
	}
	return RunWrites(ctx, c.Writes, b, c.View)
}

// previewOne reads the Deployment, previews the verb (ActionRun.Preview; a held Deployment's
// preview is Held's) and shows the preview.
func (c *ActionCommand) previewOne(ctx context.Context, ref rollout.Object) (*ActionItem, error) {
	client, err := c.Writes.Clientset()
	if err != nil {
		return nil, err
	}
	it, err := c.Preview(ctx, client, ref)
	if it == nil || it.Held || err != nil {
		return it, err
	}
	if err := c.View.Preview(it); err != nil {
		return nil, err
	}
	return it, RefuseStall(c.FailOnStall, ref.Name, it.Feasibility)
}

// apply writes one previewed Deployment (nothing for a dry run) and returns kubectl's word;
// a Deployment drive holds is handed back (HeldOperation).
func (c *ActionCommand) apply(ctx context.Context, it *ActionItem) (string, error) {
	if it.Held {
		return HeldOperation, c.HandBack(ctx, it.Client, it.Ref)
	}
	return c.Apply(ctx, it)
}
