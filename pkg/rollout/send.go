package rollout

import (
	"context"
	"errors"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/kube"
)

// Send sends the guarded patch p of a verb to d, the Deployment as previewed, with o (field
// manager, server-side dry run) through kube.PatchDeploymentGuarded, and returns the
// Deployment the server answered with. A guard refused only because the controller updated
// the status is renewed (GuardJSONPatch or GuardMergePatch on the current resourceVersion);
// a p without Guarded sends Kubectl unguarded.
//
// Errors are one line that says what happened and what to do, "patch deployments.apps
// NAME in namespace NS: ...": the Deployment changed after the preview (it matches
// kube.ErrGuard; nothing was written), forbidden (with the `kubectl auth can-i` to check),
// deleted after the preview, or the API error (wrapped).
func Send(ctx context.Context, client kubernetes.Interface, d *appsv1.Deployment, p *Patch, o kube.Options) (*appsv1.Deployment, error) {
	gp := kube.GuardedPatch{Type: p.Type, Body: p.Guarded, ResourceVersion: p.ResourceVersion, Renew: func(rv string) ([]byte, error) { return reguard(p, rv) }}
	if p.Guarded == nil {
		gp.Body, gp.Renew = p.Kubectl, nil
	}
	got, err := kube.PatchDeploymentGuarded(ctx, client, d, gp, o)
	if err != nil {
		return nil, sendError(d, p, err)
	}
	return got, nil
}

// reguard guards kubectl's patch body with resourceVersion rv instead.
func reguard(p *Patch, rv string) ([]byte, error) {
	if p.Type == types.JSONPatchType {
		return GuardJSONPatch(p.Kubectl, rv)
	}
	return GuardMergePatch(p.Kubectl, rv)
}

// sendError turns a failed patch into one line that says what happened and what to do.
func sendError(d *appsv1.Deployment, p *Patch, err error) error {
	what := fmt.Sprintf("patch deployments.apps %q in namespace %q", d.Name, d.Namespace)
	switch {
	case errors.Is(err, kube.ErrGuard):
		return &changedError{msg: fmt.Sprintf("%s: the Deployment changed after the preview (it was at resourceVersion %s): nothing was written; run the command again to preview the new state", what, p.ResourceVersion)}
	case apierrors.IsForbidden(err):
		return fmt.Errorf("%s: forbidden: you need permission to patch deployments.apps in namespace %q (check with `kubectl auth can-i patch deployments.apps -n %s`): %v", what, d.Namespace, d.Namespace, err)
	case apierrors.IsNotFound(err):
		return fmt.Errorf("%s: the Deployment was deleted after the preview: %v", what, err)
	default:
		return fmt.Errorf("%s: %w", what, err)
	}
}

// changedError is the error of a patch refused by its guard: its message is for the user
// alone, and it matches kube.ErrGuard.
type changedError struct{ msg string }

func (e *changedError) Error() string        { return e.msg }
func (e *changedError) Is(target error) bool { return target == kube.ErrGuard }
