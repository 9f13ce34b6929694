package pipeline

import (
	"context"
	"errors"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/client-go/kubernetes"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"sigs.k8s.io/yaml"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
)

// UndoRun is `kubectl rollplan undo` of Deployments as its command configures it: read each
// Deployment (Read), decide kubectl's rollback and plan what follows (Check), then send
// kubectl's guarded JSON patch through the Sink (Apply). It prints nothing: the command
// hands the UndoItem to pkg/printer. Mirrors kubectl's DeploymentRollbacker
// (k8s.io/kubectl/pkg/polymorphichelpers/rollback.go, v0.36.3) through rollout.PreviewUndo.
type UndoRun struct {
	// ToRevision is --to-revision (0: the previous revision).
	ToRevision int64
	// Readiness is the plan's readiness model.
	Readiness Readiness
	// DryRun is --dry-run: server sends the rollback with dryRun=All in Check.
	DryRun cmdutil.DryRunStrategy
	// Sink receives the patches (nil: NewSink(DryRun, FieldManager)).
	Sink         Sink
	FieldManager string
	// Checks are --checks, run on the plan of a rollback (nil: none).
	Checks *WriteChecks
}

// UndoItem is one Deployment's previewed rollback: what was read, kubectl's decision and,
// for a rollback, the plan that follows with the checks' result and the server's notes.
type UndoItem struct {
	Client kubernetes.Interface
	State  *cluster.State
	Undo   *rollout.Undo
	// Plan is the controller's plan of the rollback (nil unless Undo.Outcome is a rollback,
	// or before Check); Feasibility the checks' result on it (nil: nothing to say).
	Plan        *planner.Plan
	Feasibility *feasibility.Result
	// Notes are what the server's dry run said of the prediction (--dry-run=server).
	Notes []string
}

// LastApplied reports whether the Deployment carries kubectl's last-applied-configuration
// annotation, of which kubectl warns before a rollback.
func (it *UndoItem) LastApplied() bool {
	_, ok := it.State.Deployment.Annotations[corev1.LastAppliedConfigAnnotation]
	return ok
}

// Read reads the Deployment ref (LoadLive: one GET, one LIST, retried) and decides kubectl's
// rollback (rollout.PreviewUndo). Errors: the read's (nil item); PreviewUndo's, with the
// item of what was read (its LastApplied still applies).
func (r *UndoRun) Read(ctx context.Context, client kubernetes.Interface, ref rollout.Object) (*UndoItem, error) {
	state, err := LoadLive(ctx, client, ref.Namespace, ref.Name)
	if err != nil {
		return nil, err
	}
	it := &UndoItem{Client: client, State: state}
	if it.Undo, err = rollout.PreviewUndo(state.Deployment, state.ReplicaSets, r.ToRevision); err != nil {
		return it, err
	}
	return it, nil
}

// Check plans a rollback: with --dry-run=server from the Deployment the server returns (and
// notes where it differs from the prediction), then runs the checks on the plan. Nothing for
// an outcome that is not a rollback. Errors: the server's ("failed restoring revision N:
// ..."), the planner's, the checks'.
func (r *UndoRun) Check(ctx context.Context, it *UndoItem) error {
	u := it.Undo
	if u.Outcome != rollout.UndoRollBack {
		return nil
	}
	result := u.Result
	if r.DryRun == cmdutil.DryRunServer {
		server, err := r.sink().Deployment(ctx, it.Client, it.State.Deployment, u.Patch)
		if err != nil {
			return fmt.Errorf("failed restoring revision %d: %w", u.Revision, err)
		}
		it.Notes = serverNotes(u.Result, server)
		result = server
	}
	var err error
	if it.Plan, err = rollout.Plan(result, it.State.ReplicaSets, r.Readiness); err != nil {
		return err
	}
	if r.Checks != nil {
		it.Feasibility, it.Plan, err = r.Checks.Check(ctx, it.Client, r.Readiness, it.State, result, it.Plan)
	}
	return err
}

// Apply sends the rollback (a real run of a rollback; nothing otherwise) and returns
// kubectl's message ("rolled back", "skipped rollback (...)").
func (r *UndoRun) Apply(ctx context.Context, it *UndoItem) (string, error) {
	u := it.Undo
	if u.Outcome == rollout.UndoRollBack && r.DryRun != cmdutil.DryRunServer { // the preview sent the server's dry run
		if _, err := r.sink().Deployment(ctx, it.Client, it.State.Deployment, u.Patch); err != nil {
			return "", fmt.Errorf("failed restoring revision %d: %w", u.Revision, err)
		}
	}
	return u.Message, nil
}

func (r *UndoRun) sink() Sink {
	if r.Sink != nil {
		return r.Sink
	}
	return NewSink(r.DryRun, r.FieldManager)
}

// serverNotes compares the Deployment the server's dry run returned with the prediction.
func serverNotes(predicted, server *appsv1.Deployment) []string {
	var notes []string
	if apiequality.Semantic.DeepEqual(predicted.Spec.Template, server.Spec.Template) &&
		apiequality.Semantic.DeepEqual(predicted.Annotations, server.Annotations) {
		return append(notes, "Server dry run: accepted; the server's result has exactly the predicted pod template and annotations.")
	}
	notes = append(notes, "Server dry run: accepted, but the server's result differs from the prediction (an admission webhook or defaulting?):")
	a, _ := yaml.Marshal(map[string]interface{}{"annotations": predicted.Annotations, "template": predicted.Spec.Template})
	b, _ := yaml.Marshal(map[string]interface{}{"annotations": server.Annotations, "template": server.Spec.Template})
	notes = append(notes, rollout.UnifiedDiff("predicted", "server", string(a), string(b)))
	return notes
}

// UndoView is what UndoCommand shows (printer.UndoView): the preview of each Deployment, and
// for --patch-only and -o kubectl's patch alone and its result line.
type UndoView interface {
	WritesView
	// LastApplied is kubectl's warning of a Deployment with last-applied-configuration.
	LastApplied(name string)
	// Preview prints one previewed rollback (the outcome, the diff, the plan).
	Preview(it *UndoItem) error
	// Patch prints kubectl's patch alone (json or yaml).
	Patch(u *rollout.Undo) error
	// Result prints kubectl's result line of one Deployment (stderr: stdout holds the patch);
	// dryRun false for an outcome that writes nothing anyway (skipped).
	Result(name, message string, dryRun bool) error
}

// UndoCommand is `kubectl rollplan undo` over a selection: each Deployment read and previewed
// (UndoRun.Read, Check, the view's Preview), one confirmation, then kubectl's guarded patch
// of each (UndoRun.Apply), as RunWrites composes them; or, for one Deployment, kubectl's
// patch alone (PatchOnly, Patch: -o json|yaml) and then the write unless PatchOnly.
type UndoCommand struct {
	*UndoRun
	Writes *Writes
	// PatchOnly is --patch-only: the patch alone, nothing written; Patch is -o: the patch
	// alone, then the write.
	PatchOnly, Patch bool
	// FailOnStall refuses a rollback whose plan stalls (StallError).
	FailOnStall bool
	View        UndoView
}

// Run runs the command. A Deployment without the revision, or paused, is named and the
// others are still rolled back. Errors: RunWrites'; for one Deployment its own (kubectl's
// refusal, StallError, the server's). A nil ctx is context.Background().
func (c *UndoCommand) Run(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if c.PatchOnly || c.Patch {
		return c.runPatch(ctx)
	}
	return RunWrites(ctx, c.Writes, rollout.Batch[*UndoItem]{Preview: c.previewOne, Apply: c.Apply}, c.View)
}

// previewOne reads the Deployment, previews the rollback (with --dry-run=server, checked by
// the server) and shows the preview; kubectl's refusals (not found, paused) are shown and
// are the error.
func (c *UndoCommand) previewOne(ctx context.Context, ref rollout.Object) (*UndoItem, error) {
	it, err := c.preview(ctx, ref)
	if err != nil {
		return nil, err
	}
	if err := c.check(ctx, it, false); err != nil {
		return nil, err
	}
	return it, nil
}

// preview reads the Deployment, shows kubectl's last-applied-configuration warning if it
// applies, and previews the rollback (UndoRun.Read).
func (c *UndoCommand) preview(ctx context.Context, ref rollout.Object) (*UndoItem, error) {
	client, err := c.Writes.Clientset()
	if err != nil {
		return nil, err
	}
	it, err := c.Read(ctx, client, ref)
	if it != nil && it.LastApplied() {
		c.View.LastApplied(ref.Name)
	}
	return it, err
}

// runPatch is --patch-only and -o json|yaml (one Deployment): kubectl's patch alone, then
// (-o, a rollback) the write, with kubectl's result line.
func (c *UndoCommand) runPatch(ctx context.Context) error {
	objs := c.Writes.Objects
	if len(objs) != 1 || c.Writes.Several {
		return fmt.Errorf("--patch-only and -o print the patch of one Deployment: %d selected; name one", len(objs))
	}
	it, err := c.preview(ctx, objs[0])
	if err != nil {
		return err
	}
	if err := c.patch(it.Undo); err != nil || c.PatchOnly || it.Undo.Outcome != rollout.UndoRollBack {
		return err
	}
	if err := c.check(ctx, it, true); err != nil {
		return err
	}
	op, err := c.Apply(ctx, it)
	if err != nil {
		return err
	}
	return c.View.Result(objs[0].Name, op, true)
}

// patch shows kubectl's patch alone, or for an outcome without a patch kubectl's message
// (skipped: a result line, no error; refused, not found: the error).
func (c *UndoCommand) patch(u *rollout.Undo) error {
	switch u.Outcome {
	case rollout.UndoSkipped:
		return c.View.Result(c.Writes.Objects[0].Name, u.Message, false)
	case rollout.UndoRefused, rollout.UndoNotFound:
		return errors.New(u.Message)
	}
	return c.View.Patch(u)
}

// check checks a rollback with the server (--dry-run=server), runs the feasibility checks on
// its plan and shows the preview (unless quiet); a refused or not-found rollback is then the
// error, and with FailOnStall a plan that stalls (StallError).
func (c *UndoCommand) check(ctx context.Context, it *UndoItem, quiet bool) error {
	if err := c.Check(ctx, it); err != nil {
		return err
	}
	if !quiet {
		if err := c.View.Preview(it); err != nil {
			return err
		}
	}
	if it.Undo.Failed() {
		return errors.New(it.Undo.Message)
	}
	return RefuseStall(c.FailOnStall, it.State.Deployment.Name, it.Feasibility)
}
