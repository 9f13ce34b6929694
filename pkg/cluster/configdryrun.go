package cluster

import (
	"context"
	"fmt"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/rollplan/kubectl-rollplan/pkg/kube"
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
// server as a dry run (dryRun=All) through the write path (kube.DryRunConfigMap,
// kube.DryRunSecret: field manager kube.FieldManager, transient failures retried): an update
// of the live object when it exists (its data replaced by the manifest's, as `kubectl
// replace` would; a Secret's stringData is merged into data by the server), else a create.
// It returns the live and the dry-run object as digests; nothing is persisted. Secret
// requests go through a discarding logger, so no body reaches a log at any -v. Errors: not a
// ConfigMap or Secret, or the API's (one line naming the object, never its content).
func DryRunConfig(ctx context.Context, client kubernetes.Interface, obj *unstructured.Unstructured) (*ConfigChange, error) {
	ns, name := obj.GetNamespace(), obj.GetName()
	switch obj.GetKind() {
	case "ConfigMap":
		var cm corev1.ConfigMap
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &cm); err != nil {
			return nil, fmt.Errorf("configmap %s/%s: %w", ns, name, err)
		}
		c := &ConfigChange{Key: reload.ObjectKey{Namespace: ns, Kind: reload.ConfigMap, Name: name}}
		live, out, err := kube.DryRunConfigMap(ctx, client, kube.Retry{}, &cm)
		if err != nil {
			return nil, configError(c.Key, err)
		}
		if live != nil {
			b := reload.ConfigMapObject(live)
			c.Before = &b
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
	live, out, err := kube.DryRunSecret(ctx, client, kube.Retry{}, &s)
	if err != nil {
		return nil, configError(c.Key, err)
	}
	if live != nil {
		b := reload.SecretObject(live)
		c.Before = &b
	}
	a := reload.SecretObject(out)
	c.After = &a
	return c, nil
}
