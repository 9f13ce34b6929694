package cluster

import (
	"context"
	"fmt"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/rollplan/kubectl-rollplan/pkg/reload"
)

// ConfigChange is one ConfigMap or Secret of a manifest as the API server would store it,
// beside the live one: digests only (reload.Object), never a value.
type ConfigChange struct {
	Key reload.ObjectKey
	// Before is the live object (nil: it does not exist); After is what a server-side dry
	// run of the manifest stores.
	Before, After *reload.Object
}

// DryRunConfig sends obj (a v1 ConfigMap or Secret of a manifest, namespace set) to the API
// server as a dry run (dryRun=All): an update of the live object when it exists (its data
// replaced by the manifest's, as `kubectl replace` would; a Secret's stringData is merged
// into data by the server), else a create. It returns the live and the dry-run object as
// digests; nothing is persisted. Secret requests go through a discarding logger, so no body
// reaches a log at any -v. Errors: not a ConfigMap or Secret, or the API's (one line naming
// the object, never its content).
func DryRunConfig(ctx context.Context, client kubernetes.Interface, obj *unstructured.Unstructured) (*ConfigChange, error) {
	dry := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldManager: "kubectl-rollplan"}
	udry := metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}, FieldManager: "kubectl-rollplan"}
	ns, name := obj.GetNamespace(), obj.GetName()
	switch obj.GetKind() {
	case "ConfigMap":
		var cm corev1.ConfigMap
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &cm); err != nil {
			return nil, fmt.Errorf("configmap %s/%s: %w", ns, name, err)
		}
		c := &ConfigChange{Key: reload.ObjectKey{Namespace: ns, Kind: reload.ConfigMap, Name: name}}
		cms := client.CoreV1().ConfigMaps(ns)
		live, err := cms.Get(ctx, name, metav1.GetOptions{})
		var out *corev1.ConfigMap
		switch {
		case apierrors.IsNotFound(err):
			out, err = cms.Create(ctx, &cm, dry)
		case err == nil:
			b := reload.ConfigMapObject(live)
			c.Before = &b
			next := live.DeepCopy()
			next.Data, next.BinaryData = cm.Data, cm.BinaryData
			out, err = cms.Update(ctx, next, udry)
		}
		if err != nil {
			return nil, configError(c.Key, err)
		}
		a := reload.ConfigMapObject(out)
		c.After = &a
		return c, nil
	case "Secret":
		return dryRunSecret(klog.NewContext(ctx, logr.Discard()), client, obj)
	}
	return nil, fmt.Errorf("%s %s/%s: not a ConfigMap or Secret", obj.GetKind(), ns, name)
}

// dryRunSecret is DryRunConfig of a Secret; ctx carries a discarding logger.
func dryRunSecret(ctx context.Context, client kubernetes.Interface, obj *unstructured.Unstructured) (*ConfigChange, error) {
	ns, name := obj.GetNamespace(), obj.GetName()
	var s corev1.Secret
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &s); err != nil {
		return nil, fmt.Errorf("secret %s/%s: not a valid Secret (its content is not shown)", ns, name)
	}
	c := &ConfigChange{Key: reload.ObjectKey{Namespace: ns, Kind: reload.Secret, Name: name}}
	secrets := client.CoreV1().Secrets(ns)
	live, err := secrets.Get(ctx, name, metav1.GetOptions{})
	var out *corev1.Secret
	switch {
	case apierrors.IsNotFound(err):
		out, err = secrets.Create(ctx, &s, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldManager: "kubectl-rollplan"})
	case err == nil:
		b := reload.SecretObject(live)
		c.Before = &b
		next := live.DeepCopy()
		next.Data, next.StringData = s.Data, s.StringData
		out, err = secrets.Update(ctx, next, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}, FieldManager: "kubectl-rollplan"})
	}
	if err != nil {
		return nil, configError(c.Key, err)
	}
	a := reload.SecretObject(out)
	c.After = &a
	return c, nil
}
