package watch

import (
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubectl/pkg/polymorphichelpers"
)

// RolloutStatus is `kubectl rollout status`'s verdict on d: its message (newline included),
// whether the rollout is done, and its error (ProgressDeadlineExceeded; a revision other
// than revision, when revision is not 0, as kubectl's --revision). Mirrors
// polymorphichelpers.DeploymentStatusViewer.Status, k8s.io/kubectl v0.36.3, which it calls.
// Errors: also d cannot be converted.
func RolloutStatus(d *appsv1.Deployment, revision int64) (string, bool, error) {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(d)
	if err != nil {
		return "", false, err
	}
	return (&polymorphichelpers.DeploymentStatusViewer{}).Status(&unstructured.Unstructured{Object: u}, revision)
}

// RolloutComplete is the one "is this rollout complete" of the waits after a write (reload's
// restarts, one-shot and --watch): the controller has observed generation (the write's, or
// a later one) and RolloutStatus says done. Before that it is not done and has no error;
// after it, RolloutStatus's message and error (ProgressDeadlineExceeded).
func RolloutComplete(d *appsv1.Deployment, generation int64) (string, bool, error) {
	if d.Status.ObservedGeneration < generation {
		return "", false, nil
	}
	return RolloutStatus(d, 0)
}
