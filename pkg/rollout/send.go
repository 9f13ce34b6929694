package rollout

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	jsonpatchv4 "gopkg.in/evanphx/json-patch.v4"
	appsv1 "k8s.io/api/apps/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/kube"
)

// Send sends the guarded patch p of a verb to d, the Deployment as previewed, with o (field
// manager, server-side dry run) through kube.PatchDeploymentGuarded, and returns the
// Deployment the server answered with. A guard refused only because the controller updated
// the status is renewed (GuardJSONPatch or GuardMergePatch on the current resourceVersion);
// a p without Guarded sends Kubectl unguarded.
//
// Transient failures (the API server restarting, 429, 5xx) are retried by
// kube.PatchDeploymentGuarded; a patch sent again after one, refused by its guard because
// the first had reached the server, counts as sent when the Deployment shows it (Shows):
// never applied twice.
//
// Errors are one line that says what happened and what to do, "patch deployments.apps
// NAME in namespace NS: ...": the Deployment changed after the preview (it matches
// kube.ErrGuard; nothing was written), forbidden (with the `kubectl auth can-i` to check),
// deleted after the preview, or the API error (wrapped).
func Send(ctx context.Context, client kubernetes.Interface, d *appsv1.Deployment, p *Patch, o kube.Options) (*appsv1.Deployment, error) {
	gp := kube.GuardedPatch{Type: p.Type, Body: p.Guarded, ResourceVersion: p.ResourceVersion,
		Renew: func(rv string) ([]byte, error) { return reguard(p, rv) }, Shows: func(now *appsv1.Deployment) bool { return Shows(now, p) }}
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

// Shows reports whether now, the Deployment read again, already carries the change of p:
// kubectl's patch applied to it changes neither its spec, its labels nor its annotations
// (except the deployment.kubernetes.io/ ones the controller rewrites, such as the revision
// after an undo). A patch that does not apply gives false.
func Shows(now *appsv1.Deployment, p *Patch) bool {
	after, err := applyPatch(now, p)
	if err != nil {
		return false
	}
	return apiequality.Semantic.DeepEqual(now.Spec, after.Spec) &&
		apiequality.Semantic.DeepEqual(now.Labels, after.Labels) &&
		apiequality.Semantic.DeepEqual(ownAnnotations(now.Annotations), ownAnnotations(after.Annotations))
}

// applyPatch applies p's kubectl body to d as the API server would (JSON patch, strategic
// merge patch or merge patch).
func applyPatch(d *appsv1.Deployment, p *Patch) (*appsv1.Deployment, error) {
	orig, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	var out []byte
	switch p.Type {
	case types.JSONPatchType:
		ops, derr := jsonpatchv4.DecodePatch(p.Kubectl)
		if derr != nil {
			return nil, derr
		}
		out, err = ops.Apply(orig)
	case types.StrategicMergePatchType:
		out, err = strategicpatch.StrategicMergePatch(orig, p.Kubectl, &appsv1.Deployment{})
	default:
		out, err = jsonpatchv4.MergePatch(orig, p.Kubectl)
	}
	if err != nil {
		return nil, err
	}
	after := &appsv1.Deployment{}
	return after, json.Unmarshal(out, after)
}

// ownAnnotations is annotations without the deployment.kubernetes.io/ keys.
func ownAnnotations(annotations map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range annotations {
		if !strings.HasPrefix(k, "deployment.kubernetes.io/") {
			out[k] = v
		}
	}
	return out
}
