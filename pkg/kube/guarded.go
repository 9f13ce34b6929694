package kube

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	typedappsv1 "k8s.io/client-go/kubernetes/typed/apps/v1"
)

// GuardedPatch is a patch of a Deployment held to the resourceVersion it was read at.
type GuardedPatch struct {
	// Type is the patch type: a JSON patch held by a `test` of /metadata/resourceVersion
	// (a changed Deployment gives 422), or a merge patch carrying metadata.resourceVersion
	// as its precondition (a changed Deployment gives 409 Conflict).
	Type types.PatchType
	// Body is the guarded patch.
	Body []byte
	// ResourceVersion is the resourceVersion Body holds the Deployment to.
	ResourceVersion string
	// Renew returns Body held to resourceVersion rv instead; nil: the guard is never
	// renewed and any refusal is final.
	Renew func(rv string) ([]byte, error)
	// Shows reports whether a Deployment carries the patch's change. A patch sent again
	// after a transient failure (the first may have been applied before the connection
	// dropped) whose guard is then refused counts as done when the Deployment read again
	// shows the change: it is never applied twice. nil: such a refusal is the guard's.
	Shows func(*appsv1.Deployment) bool
}

// PatchDeploymentGuarded sends p to d (by namespace and name) with o, and returns the
// Deployment the server answered with (TypeMeta set), or would store with o.DryRun.
//
// The controller updates a Deployment's status, and with it the resourceVersion, at any
// moment of a rollout. A guard refused (409 Conflict, or 422 from a failed test) while
// spec, labels, annotations and generation are still those of d is renewed on the current
// resourceVersion (p.Renew) and sent again, within Backoff; any other change ends it.
//
// Transient failures (IsTransient: the API server restarting, 429, 5xx) are retried with
// TransientBackoff for TransientTimeout (Retry); a guard refusing a patch sent again after
// one is resolved with p.Shows (see Applied).
//
// Errors: a Deployment that changed since d was read (a conflict, or a failed test with the
// resourceVersion moved on) gives an error matching ErrGuard, and nothing was written;
// anything else is the API error as it came (Classify tells forbidden, not found, ...).
func PatchDeploymentGuarded(ctx context.Context, client kubernetes.Interface, d *appsv1.Deployment, p GuardedPatch, o Options) (*appsv1.Deployment, error) {
	deployments := client.AppsV1().Deployments(d.Namespace)
	body := p.Body
	var out *appsv1.Deployment
	get := func(ctx context.Context) (*appsv1.Deployment, error) {
		return deployments.Get(ctx, d.Name, metav1.GetOptions{})
	}
	err := OnError(isRefused, func() error {
		var got *appsv1.Deployment
		err := Retry{}.Do(ctx, func(ctx context.Context, retried bool) error {
			var err error
			if got, err = deployments.Patch(ctx, d.Name, p.Type, body, o.PatchOptions()); err != nil && p.Shows != nil {
				got, err = Applied(ctx, retried, err, get, p.Shows)
			}
			return err
		})
		if err == nil {
			out = got
			return nil
		}
		if p.Renew == nil || !isRefused(err) {
			return Stop(err)
		}
		now, gerr := get(ctx)
		if gerr != nil || now.ResourceVersion == p.ResourceVersion || !OnlyStatusMoved(d, now) {
			return Stop(err)
		}
		renewed, rerr := p.Renew(now.ResourceVersion)
		if rerr != nil {
			return Stop(err)
		}
		body = renewed
		return err
	})
	if err == nil {
		out.APIVersion, out.Kind = appsv1.SchemeGroupVersion.String(), "Deployment"
		return out, nil
	}
	if changedSince(ctx, deployments, d.Name, p, err) {
		return nil, fmt.Errorf("%w (%w)", ErrGuard, err)
	}
	return nil, err
}

// isRefused reports whether err may be a guard refusing the patch: a 409 Conflict (merge
// patch precondition) or a 422 Invalid (failed test, or a really invalid patch: the
// re-read tells them apart).
func isRefused(err error) bool { return apierrors.IsConflict(err) || apierrors.IsInvalid(err) }

// changedSince reports whether the refusal err means the Deployment changed since p was
// built: a Conflict does; a failed test is a bare 422 without details, so look whether the
// Deployment moved on from p.ResourceVersion.
func changedSince(ctx context.Context, deployments typedappsv1.DeploymentInterface, name string, p GuardedPatch, err error) bool {
	if apierrors.IsConflict(err) {
		return true
	}
	if p.Type != types.JSONPatchType || !apierrors.IsInvalid(err) {
		return false
	}
	now, gerr := deployments.Get(ctx, name, metav1.GetOptions{})
	return gerr == nil && now.ResourceVersion != p.ResourceVersion
}

// OnlyStatusMoved reports whether now differs from the d that was read in status (and
// resourceVersion) alone: same generation, spec, labels and annotations. A guard failed on
// such a change still holds what the user saw.
func OnlyStatusMoved(d, now *appsv1.Deployment) bool {
	return now.Generation == d.Generation &&
		apiequality.Semantic.DeepEqual(now.Spec, d.Spec) &&
		apiequality.Semantic.DeepEqual(now.Labels, d.Labels) &&
		apiequality.Semantic.DeepEqual(now.Annotations, d.Annotations)
}
