package kube

import (
	"context"
	"errors"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// ErrDryRunForbidden is matched (errors.Is) by DryRunUpdate's error when the user may not
// update (or create) the Deployment: the caller then falls back to ApplyDefaults and warns
// that the template hash is computed from client-side defaults.
var ErrDryRunForbidden = errors.New("server-side dry run forbidden")

// DryRunUpdate sends desired to the API server with dryRun=All and returns the object the
// server would store: defaulted, validated and admitted (mutating webhooks included), with
// nothing persisted. A desired with a resourceVersion is an Update guarded by it (a
// Deployment changed since it was read gives a Conflict); one without is a Create, for a
// Deployment that does not exist yet.
//
// Errors: Forbidden matches ErrDryRunForbidden (and still apierrors.IsForbidden); Invalid
// carries the server's field errors; Conflict says to re-read; AlreadyExists (a Create of a
// Deployment that exists) says to read it first. The apierrors status stays reachable with
// errors.As.
func DryRunUpdate(ctx context.Context, client kubernetes.Interface, desired *appsv1.Deployment) (*appsv1.Deployment, error) {
	deployments := client.AppsV1().Deployments(desired.Namespace)
	o := Options{DryRun: true} // no field manager: nothing is stored
	verb := "update"
	var got *appsv1.Deployment
	var err error
	if desired.ResourceVersion == "" {
		verb = "create"
		got, err = deployments.Create(ctx, desired, o.CreateOptions())
	} else {
		got, err = UpdateDeployment(ctx, client, desired, o)
	}
	if err == nil {
		got.APIVersion, got.Kind = appsv1.SchemeGroupVersion.String(), "Deployment"
		return got, nil
	}
	what := fmt.Sprintf("server-side dry run of %s deployment %s/%s", verb, desired.Namespace, desired.Name)
	switch {
	case apierrors.IsForbidden(err):
		return nil, &dryRunError{err: err, forbidden: true, msg: fmt.Sprintf(
			"%s: forbidden: it needs permission to %s deployments.apps in namespace %q (%v)", what, verb, desired.Namespace, err)}
	case apierrors.IsConflict(err):
		return nil, &dryRunError{err: err, msg: fmt.Sprintf(
			"%s: the Deployment changed since it was read (resourceVersion %s): run the command again", what, desired.ResourceVersion)}
	case apierrors.IsAlreadyExists(err):
		return nil, &dryRunError{err: err, msg: fmt.Sprintf(
			"%s: the Deployment exists already: read it first so the change is an update", what)}
	default:
		return nil, &dryRunError{err: err, msg: fmt.Sprintf("%s: %v", what, err)}
	}
}

type dryRunError struct {
	err       error
	msg       string
	forbidden bool
}

func (e *dryRunError) Error() string { return e.msg }
func (e *dryRunError) Unwrap() error { return e.err }
func (e *dryRunError) Is(target error) bool {
	return e.forbidden && target == ErrDryRunForbidden
}

// dryRunConflictTries bounds DryRunUpdateOf's dry runs sent again after a status-only change.
const dryRunConflictTries = 3

// DryRunUpdateOf is DryRunUpdate of desired, the change of read (the Deployment as it was
// read; nil: a create). A Conflict because only the Deployment controller moved read since
// it was read (its status mid-rollout, or its first sync's deployment.kubernetes.io/revision
// annotation: same generation, spec and labels, controllerMoved) does not change what the
// user asked: the dry run is sent again with the current resourceVersion (and revision
// annotation), up to 3 times. A Conflict for any other change is returned as DryRunUpdate
// returns it. Errors: DryRunUpdate's; the GET's are not returned (the Conflict is).
func DryRunUpdateOf(ctx context.Context, client kubernetes.Interface, read, desired *appsv1.Deployment) (*appsv1.Deployment, error) {
	got, err := DryRunUpdate(ctx, client, desired)
	for try := 1; try < dryRunConflictTries && read != nil && desired.ResourceVersion != "" && apierrors.IsConflict(err); try++ {
		now, gerr := client.AppsV1().Deployments(desired.Namespace).Get(ctx, desired.Name, metav1.GetOptions{})
		if gerr != nil || !controllerMoved(read, now) {
			break
		}
		desired = desired.DeepCopy()
		desired.ResourceVersion = now.ResourceVersion
		if rev, ok := now.Annotations[revisionAnnotation]; ok {
			if desired.Annotations == nil {
				desired.Annotations = map[string]string{}
			}
			desired.Annotations[revisionAnnotation] = rev
		}
		got, err = DryRunUpdate(ctx, client, desired)
	}
	return got, err
}

// revisionAnnotation is the Deployment controller's revision annotation
// (deploymentutil.RevisionAnnotation, k8s.io/kubernetes v1.36.3).
const revisionAnnotation = "deployment.kubernetes.io/revision"

// controllerMoved reports whether now differs from the d that was read only where the
// Deployment controller writes: status (OnlyStatusMoved) or the revision annotation.
func controllerMoved(d, now *appsv1.Deployment) bool {
	strip := func(a map[string]string) map[string]string {
		out := map[string]string{}
		for k, v := range a {
			if k != revisionAnnotation {
				out[k] = v
			}
		}
		return out
	}
	a, b := d.DeepCopy(), now.DeepCopy()
	a.Annotations, b.Annotations = strip(a.Annotations), strip(b.Annotations)
	return OnlyStatusMoved(a, b)
}
