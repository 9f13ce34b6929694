package kube

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// configClient is what DryRunConfigMap and DryRunSecret need of client-go's typed
// ConfigMapInterface and SecretInterface.
type configClient[T any] interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error)
	Create(ctx context.Context, obj T, opts metav1.CreateOptions) (T, error)
	Update(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error)
}

// DryRunConfigMap sends cm (namespace set) as a server-side dry run (dryRun=All, field manager
// FieldManager): an update of the live ConfigMap with its data and binaryData replaced by cm's
// (as `kubectl replace` would) when it exists, else a create. It returns the live object
// (nil: none) and the one the server would store; nothing is persisted. A dry run changes
// nothing, so the whole GET-then-write is sent again after a transient failure, under r's
// policy (Read). Errors: the API's (apierrors status reachable with errors.As), after
// retries those of Retry.Do.
func DryRunConfigMap(ctx context.Context, client kubernetes.Interface, r Retry, cm *corev1.ConfigMap) (live, stored *corev1.ConfigMap, err error) {
	return dryRunConfig(ctx, client.CoreV1().ConfigMaps(cm.Namespace), r, cm, func(live *corev1.ConfigMap) *corev1.ConfigMap {
		next := live.DeepCopy()
		next.Data, next.BinaryData = cm.Data, cm.BinaryData
		return next
	})
}

// DryRunSecret is DryRunConfigMap for a Secret: the update replaces data and stringData (the
// server merges stringData into data). ctx should carry a discarding logger (klog.NewContext)
// so that no request body reaches a log at any -v; errors never carry the Secret's content.
func DryRunSecret(ctx context.Context, client kubernetes.Interface, r Retry, s *corev1.Secret) (live, stored *corev1.Secret, err error) {
	return dryRunConfig(ctx, client.CoreV1().Secrets(s.Namespace), r, s, func(live *corev1.Secret) *corev1.Secret {
		next := live.DeepCopy()
		next.Data, next.StringData = s.Data, s.StringData
		return next
	})
}

func dryRunConfig[T interface {
	comparable
	metav1.Object
}](ctx context.Context, c configClient[T], r Retry, obj T, replaced func(live T) T) (T, T, error) {
	o := Options{FieldManager: FieldManager, DryRun: true}
	type result struct{ live, stored T }
	var zero T
	res, err := Read(ctx, r, func(ctx context.Context) (result, error) {
		live, err := c.Get(ctx, obj.GetName(), metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			stored, err := c.Create(ctx, obj, o.CreateOptions())
			return result{stored: stored}, err
		case err != nil:
			return result{}, err
		}
		stored, err := c.Update(ctx, replaced(live), o.UpdateOptions())
		return result{live: live, stored: stored}, err
	})
	if err != nil {
		return zero, zero, err
	}
	return res.live, res.stored, nil
}
