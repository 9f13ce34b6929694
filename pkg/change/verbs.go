package change

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/deployutil"
)

// RestartedAtAnnotation is the pod template annotation `kubectl rollout restart` sets.
const RestartedAtAnnotation = "kubectl.kubernetes.io/restartedAt"

// Errors a caller can detect with errors.Is. Their messages are kubectl's.
var (
	// ErrPaused: `kubectl rollout restart` and `kubectl rollout undo` refuse a paused
	// Deployment.
	ErrPaused = errors.New("deployment is paused")
	// ErrAlreadyPaused: `kubectl rollout pause` on a paused Deployment changes nothing; kubectl
	// v1.36.3 prints `error: deployments.apps "web" is already paused` and exits 1.
	ErrAlreadyPaused = errors.New("is already paused")
	// ErrNotPaused: `kubectl rollout resume` on a Deployment that is not paused changes
	// nothing; kubectl v1.36.3 prints `error: deployments.apps "web" is not paused` and exits 1.
	ErrNotPaused = errors.New("is not paused")
)

// kubectlError is an error with kubectl's exact message that matches a sentinel.
type kubectlError struct {
	msg      string
	sentinel error
}

func (e *kubectlError) Error() string        { return e.msg }
func (e *kubectlError) Is(target error) bool { return target == e.sentinel }

// Restart returns a copy of d with the pod template annotation
// kubectl.kubernetes.io/restartedAt = now in RFC 3339 (in now's time zone, as kubectl uses
// the local time), which makes a new template and so a rollout.
//
// A paused Deployment is refused with kubectl's message, `can't restart paused deployment
// (run rollout resume first)`, matching ErrPaused.
//
// Mirrors defaultObjectRestarter, k8s.io/kubectl/pkg/polymorphichelpers/objectrestarter.go,
// v0.36.3 (which reads time.Now itself).
func Restart(d *appsv1.Deployment, now time.Time) (*appsv1.Deployment, error) {
	if d.Spec.Paused {
		return nil, &kubectlError{msg: "can't restart paused deployment (run rollout resume first)", sentinel: ErrPaused}
	}
	out := d.DeepCopy()
	if out.Spec.Template.Annotations == nil {
		out.Spec.Template.Annotations = map[string]string{}
	}
	out.Spec.Template.Annotations[RestartedAtAnnotation] = now.Format(time.RFC3339)
	return out, nil
}

// Pause returns a copy of d with spec.paused = true, as `kubectl rollout pause`; a paused d
// gives ErrAlreadyPaused (kubectl v1.36.3: an error, exit code 1).
// Mirrors defaultObjectPauser, polymorphichelpers/objectpauser.go, v0.36.3.
func Pause(d *appsv1.Deployment) (*appsv1.Deployment, error) {
	if d.Spec.Paused {
		return nil, ErrAlreadyPaused
	}
	out := d.DeepCopy()
	out.Spec.Paused = true
	return out, nil
}

// Resume returns a copy of d with spec.paused = false, as `kubectl rollout resume`; a d that
// is not paused gives ErrNotPaused. Mirrors defaultObjectResumer, objectresumer.go, v0.36.3.
func Resume(d *appsv1.Deployment) (*appsv1.Deployment, error) {
	if !d.Spec.Paused {
		return nil, ErrNotPaused
	}
	out := d.DeepCopy()
	out.Spec.Paused = false
	return out, nil
}

// Rollback is what `kubectl rollout undo` does to a Deployment.
type Rollback struct {
	// Deployment is a copy of the input after kubectl's patch: spec.template is the target
	// ReplicaSet's template without the pod-template-hash label, and metadata.annotations
	// are replaced by the ReplicaSet's annotations, keeping the Deployment's own values of
	// the annotations kubectl preserves (last-applied-configuration and the
	// deployment.kubernetes.io revision, revision-history, desired-replicas, max-replicas).
	// When Skipped, it is an unchanged copy.
	Deployment *appsv1.Deployment
	// Target is the ReplicaSet whose template is restored (as given, not copied).
	Target *appsv1.ReplicaSet
	// Revision is the revision rolled back to (the previous one when 0 was asked).
	Revision int64
	// Skipped: the Deployment's template already matches the target's, so kubectl writes
	// nothing and prints "skipped rollback (current template already matches revision N)".
	Skipped bool
}

// ToRevision computes `kubectl rollout undo --to-revision=revision` on d, whose ReplicaSets
// are rss. Only ReplicaSets controlled by d count (metav1.IsControlledBy, as kubectl's
// deploymentutil.GetAllReplicaSets): orphans the controller has not adopted yet are not
// history. Revision 0 means the previous revision: the second highest
// deployment.kubernetes.io/revision among them.
//
// Errors, in kubectl's words: a revision not in history (or negative) gives `unable to find
// specified revision 7 in history`, followed here by the revisions that exist; revision 0
// with a single revision gives `no rollout history found for deployment "web"`; a paused d
// gives `you cannot rollback a paused deployment; resume it first with 'kubectl rollout
// resume' and try again` (matching ErrPaused). A revision annotation that is not a number is
// skipped, as kubectl skips it.
//
// Mirrors DeploymentRollbacker.Rollback and deploymentRevision,
// k8s.io/kubectl/pkg/polymorphichelpers/rollback.go, v0.36.3.
func ToRevision(d *appsv1.Deployment, rss []*appsv1.ReplicaSet, revision int64) (*Rollback, error) {
	if revision < 0 {
		return nil, revisionNotFound(revision, rss, d)
	}
	target, err := findRevision(d, rss, revision)
	if err != nil {
		return nil, err
	}
	rev, _ := deployutil.Revision(target)
	if d.Spec.Paused {
		return nil, &kubectlError{
			msg:      "you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' and try again",
			sentinel: ErrPaused,
		}
	}
	out := d.DeepCopy()
	if deployutil.EqualIgnoreHash(&target.Spec.Template, &d.Spec.Template) {
		return &Rollback{Deployment: out, Target: target, Revision: rev, Skipped: true}, nil
	}
	template := target.Spec.Template.DeepCopy()
	delete(template.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
	out.Spec.Template = *template

	annotations := deployutil.SkippedAnnotations(d.Annotations)
	for k, v := range target.Annotations {
		if !deployutil.SkipCopyAnnotation(k) {
			annotations[k] = v
		}
	}
	out.Annotations = annotations
	return &Rollback{Deployment: out, Target: target, Revision: rev}, nil
}

// findRevision mirrors deploymentRevision: the ReplicaSet with the given revision, or for 0
// the one with the second highest revision.
func findRevision(d *appsv1.Deployment, rss []*appsv1.ReplicaSet, toRevision int64) (*appsv1.ReplicaSet, error) {
	var latest, previous *appsv1.ReplicaSet
	latestRevision, previousRevision := int64(-1), int64(-1)
	for _, rs := range rss {
		if !metav1.IsControlledBy(rs, d) {
			continue
		}
		v, err := deployutil.Revision(rs)
		if err != nil {
			continue
		}
		switch {
		case toRevision > 0:
			if v == toRevision {
				return rs, nil
			}
		case latestRevision < v:
			previousRevision, previous = latestRevision, latest
			latestRevision, latest = v, rs
		case previousRevision < v:
			previousRevision, previous = v, rs
		}
	}
	if toRevision > 0 {
		return nil, revisionNotFound(toRevision, rss, d)
	}
	if previous == nil {
		return nil, fmt.Errorf("no rollout history found for deployment %q", d.Name)
	}
	return previous, nil
}

// revisionNotFound is kubectl's revisionNotFoundErr plus the revisions that do exist.
func revisionNotFound(r int64, rss []*appsv1.ReplicaSet, d *appsv1.Deployment) error {
	var revs []int64
	for _, rs := range rss {
		if v, err := deployutil.Revision(rs); err == nil && v > 0 && metav1.IsControlledBy(rs, d) {
			revs = append(revs, v)
		}
	}
	slices.Sort(revs)
	revs = slices.Compact(revs)
	if len(revs) == 0 {
		return fmt.Errorf("unable to find specified revision %d in history (deployment %q has no revisions)", r, d.Name)
	}
	s := make([]string, len(revs))
	for i, v := range revs {
		s[i] = strconv.FormatInt(v, 10)
	}
	return fmt.Errorf("unable to find specified revision %d in history (revisions of deployment %q: %s)", r, d.Name, strings.Join(s, ", "))
}
