package pipeline

import (
	"context"
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
