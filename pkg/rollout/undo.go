package rollout

import (
	"errors"
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	"github.com/rollplan/kubectl-rollplan/pkg/change"
)

// UndoOutcome is what `kubectl rollout undo` does when run now.
type UndoOutcome string

const (
	// UndoRollBack: kubectl patches the Deployment ("deployment.apps/web rolled back").
	UndoRollBack UndoOutcome = "RollBack"
	// UndoSkipped: the template already matches the revision; kubectl writes nothing and
	// prints "skipped rollback (current template already matches revision N)".
	UndoSkipped UndoOutcome = "Skipped"
	// UndoRefused: the Deployment is paused; kubectl fails with "you cannot rollback a paused
	// deployment; resume it first with 'kubectl rollout resume' and try again".
	UndoRefused UndoOutcome = "Refused"
	// UndoNotFound: the revision is not in the history (or is negative, or there is no
	// previous revision); kubectl fails with "unable to find specified revision N in history"
	// or `no rollout history found for deployment "web"`.
	UndoNotFound UndoOutcome = "NotFound"
)

// LastAppliedWarning is the warning kubectl rollout undo prints to stderr when the
// Deployment carries kubectl.kubernetes.io/last-applied-configuration: %[1]s is the object
// name ("deployment.apps/web"), %[2]s the annotation, %[3]s the command's base name
// ("kubectl"). Copied from warningRollbackApplyManagedResource, k8s.io/kubectl/pkg/cmd/
// rollout/rollout_undo.go, v0.36.3.
const LastAppliedWarning = "Warning: resource %[1]s was previously managed with '%[3]s apply'. " +
	"Rolling back will not update the %[2]s annotation, which may cause unexpected behavior on future '%[3]s apply' operations. " +
	"Consider using '%[3]s apply' with your previous configuration file instead.\n"

// AnnotationChange is one Deployment annotation the rollback patch changes.
type AnnotationChange struct {
	Key string
	// Op is "drop" (the patch removes it), "change" (another value) or "add".
	Op string
	// From is the live value ("" for add); To the value after the patch ("" for drop).
	From, To string
}

// Undo is the preview of `kubectl rollout undo [--to-revision=N]` on a Deployment.
type Undo struct {
	// Namespace and Name of the Deployment.
	Namespace, Name string
	// ToRevision is the revision asked for (0: the previous one); Revision the revision it
	// resolves to (0 when not found).
	ToRevision, Revision int64
	// Outcome is what kubectl does now; Message is kubectl's message for it (the error
	// message for Refused and NotFound, the printed result otherwise, without the
	// "deployment.apps/web " prefix).
	Outcome UndoOutcome
	Message string
	// Target is the ReplicaSet of Revision (nil for NotFound).
	Target *appsv1.ReplicaSet
	// Live is the Deployment as read; Result the Deployment after the patch (nil unless
	// Outcome is RollBack).
	Live, Result *appsv1.Deployment
	// TemplateDiff is the unified diff of the live pod template against the target's (without
	// the pod-template-hash label); "" when they are equal or there is no target.
	TemplateDiff string
	// Annotations are the changes the patch makes to metadata.annotations, sorted by key:
	// kubectl replaces the whole map, so annotations set on the Deployment since revision N
	// was created are dropped.
	Annotations []AnnotationChange
	// LastApplied: the Deployment has kubectl.kubernetes.io/last-applied-configuration, which
	// the rollback keeps as it is (kubectl warns, see LastAppliedWarning).
	LastApplied bool
	// Patch is kubectl's JSON patch and rollplan's guarded form (nil unless RollBack).
	Patch *Patch
}

// Failed reports whether kubectl rollout undo exits with an error for this outcome.
func (u *Undo) Failed() bool { return u.Outcome == UndoRefused || u.Outcome == UndoNotFound }

// PreviewUndo computes what `kubectl rollout undo --to-revision=toRevision` does to d, whose
// ReplicaSets are rss (as pkg/cluster reads them; only those d controls are history). It
// returns an error only for an input it cannot handle; the refusals kubectl makes are
// outcomes (Refused, NotFound) with kubectl's messages, checked in kubectl's order: negative
// or unknown revision, paused, template already equal.
//
// Mirrors DeploymentRollbacker.Rollback, k8s.io/kubectl/pkg/polymorphichelpers/rollback.go,
// v0.36.3 (through change.ToRevision) and its getDeploymentPatch (RollbackPatch).
func PreviewUndo(d *appsv1.Deployment, rss []*appsv1.ReplicaSet, toRevision int64) (*Undo, error) {
	u := &Undo{Namespace: d.Namespace, Name: d.Name, ToRevision: toRevision, Live: d}
	if _, ok := d.Annotations[corev1.LastAppliedConfigAnnotation]; ok {
		u.LastApplied = true
	}
	rb, err := change.ToRevision(d, rss, toRevision)
	switch {
	case errors.Is(err, change.ErrPaused):
		u.Outcome, u.Message = UndoRefused, err.Error()
		u.Target, u.Revision = findTarget(d, rss, toRevision)
		return u, u.diffTemplates()
	case err != nil:
		u.Outcome, u.Message = UndoNotFound, err.Error()
		return u, nil
	}
	u.Target, u.Revision = rb.Target, rb.Revision
	if err := u.diffTemplates(); err != nil {
		return nil, err
	}
	if rb.Skipped {
		u.Outcome = UndoSkipped
		u.Message = fmt.Sprintf("skipped rollback (current template already matches revision %d)", rb.Revision)
		return u, nil
	}
	u.Outcome, u.Message = UndoRollBack, "rolled back"
	u.Result = rb.Deployment
	u.Annotations = annotationChanges(d.Annotations, rb.Deployment.Annotations)
	body, err := RollbackPatch(&rb.Deployment.Spec.Template, rb.Deployment.Annotations)
	if err != nil {
		return nil, fmt.Errorf("failed restoring revision %d: %w", rb.Revision, err)
	}
	u.Patch = &Patch{Type: types.JSONPatchType, Kubectl: body, ResourceVersion: d.ResourceVersion}
	if d.ResourceVersion != "" {
		if u.Patch.Guarded, err = GuardJSONPatch(body, d.ResourceVersion); err != nil {
			return nil, err
		}
	}
	return u, nil
}

// findTarget finds the ReplicaSet change.ToRevision would pick, for a refused rollback (the
// diff is still worth showing).
func findTarget(d *appsv1.Deployment, rss []*appsv1.ReplicaSet, toRevision int64) (*appsv1.ReplicaSet, int64) {
	unpaused := d.DeepCopy()
	unpaused.Spec.Paused = false
	rb, err := change.ToRevision(unpaused, rss, toRevision)
	if err != nil {
		return nil, 0
	}
	return rb.Target, rb.Revision
}

func (u *Undo) diffTemplates() error {
	if u.Target == nil {
		return nil
	}
	target := u.Target.Spec.Template.DeepCopy()
	delete(target.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
	live, err := yaml.Marshal(&u.Live.Spec.Template)
	if err != nil {
		return fmt.Errorf("encode the pod template of deployment %s/%s: %w", u.Namespace, u.Name, err)
	}
	to, err := yaml.Marshal(target)
	if err != nil {
		return fmt.Errorf("encode the pod template of replicaset %s/%s: %w", u.Namespace, u.Target.Name, err)
	}
	u.TemplateDiff = UnifiedDiff(
		fmt.Sprintf("deployment.apps/%s spec.template (live)", u.Name),
		fmt.Sprintf("revision %d spec.template (replicaset %s)", u.Revision, u.Target.Name),
		string(live), string(to))
	return nil
}

// annotationChanges lists what replacing the annotations from with to changes, by key.
func annotationChanges(from, to map[string]string) []AnnotationChange {
	var out []AnnotationChange
	for k, v := range from {
		w, ok := to[k]
		switch {
		case !ok:
			out = append(out, AnnotationChange{Key: k, Op: "drop", From: v})
		case v != w:
			out = append(out, AnnotationChange{Key: k, Op: "change", From: v, To: w})
		}
	}
	for k, w := range to {
		if _, ok := from[k]; !ok {
			out = append(out, AnnotationChange{Key: k, Op: "add", To: w})
		}
	}
	slices.SortFunc(out, func(a, b AnnotationChange) int {
		switch {
		case a.Key < b.Key:
			return -1
		case a.Key > b.Key:
			return 1
		}
		return 0
	})
	return out
}
