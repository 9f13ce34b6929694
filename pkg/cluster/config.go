package cluster

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/rollplan/kubectl-rollplan/pkg/reload"
)

// Config reads the ConfigMaps and Secrets Deployments reference, one GET per object per
// run (cached, safe for concurrent use), and keeps only what reload decides on: each
// object's per-key digests (reload.Object: a Secret's values are digested with its UID as
// the HMAC key and dropped at once, never kept, printed or logged) and its last data write
// (reload.LastDataWrite of its managedFields).
type Config struct {
	client kubernetes.Interface
	mu     sync.Mutex
	seen   map[reload.ObjectKey]configEntry
}

type configEntry struct {
	obj   *reload.Object // nil: the object does not exist
	write *reload.DataWrite
}

// NewConfig returns a Config reading through client.
func NewConfig(client kubernetes.Interface) *Config {
	return &Config{client: client, seen: map[reload.ObjectKey]configEntry{}}
}

// Read returns the objects the references of d's pod template name, keyed for
// reload.Decide (a missing object is absent), and the last data write of each existing
// one, keyed by reload.Ref.AnnotationKey (absent when no managedFields entry owns data).
//
// Errors: any API error but NotFound, one line naming the object and, for Forbidden, the
// permission needed (`get secrets`).
func (c *Config) Read(ctx context.Context, d *appsv1.Deployment) (map[reload.ObjectKey]reload.Object, map[string]reload.DataWrite, error) {
	objects := map[reload.ObjectKey]reload.Object{}
	writes := map[string]reload.DataWrite{}
	for _, ref := range reload.References(&d.Spec.Template) {
		key := reload.ObjectKey{Namespace: d.Namespace, Kind: ref.Kind, Name: ref.Name}
		e, err := c.get(ctx, key)
		if err != nil {
			return nil, nil, err
		}
		if e.obj == nil {
			continue
		}
		objects[key] = *e.obj
		if e.write != nil {
			writes[ref.AnnotationKey()] = *e.write
		}
	}
	return objects, writes, nil
}

// Object returns the object key names (nil when it does not exist), read once per run.
func (c *Config) Object(ctx context.Context, key reload.ObjectKey) (*reload.Object, error) {
	e, err := c.get(ctx, key)
	return e.obj, err
}

func (c *Config) get(ctx context.Context, key reload.ObjectKey) (configEntry, error) {
	c.mu.Lock()
	e, ok := c.seen[key]
	c.mu.Unlock()
	if ok {
		return e, nil
	}
	e, err := c.fetch(ctx, key)
	if err != nil {
		return configEntry{}, err
	}
	c.mu.Lock()
	c.seen[key] = e
	c.mu.Unlock()
	return e, nil
}

// fetch GETs one object and digests it; the Secret's data goes out of scope here.
func (c *Config) fetch(ctx context.Context, key reload.ObjectKey) (configEntry, error) {
	var obj reload.Object
	var meta metav1.ObjectMeta
	var err error
	switch key.Kind {
	case reload.ConfigMap:
		var cm *corev1.ConfigMap
		if cm, err = c.client.CoreV1().ConfigMaps(key.Namespace).Get(ctx, key.Name, metav1.GetOptions{}); err == nil {
			obj, meta = reload.ConfigMapObject(cm), cm.ObjectMeta
		}
	case reload.Secret:
		var s *corev1.Secret
		// client-go logs request and response bodies at -v=8 and above through the
		// context's logger (rest.Request's logBody): a Secret's body never reaches one.
		quiet := klog.NewContext(ctx, logr.Discard())
		if s, err = c.client.CoreV1().Secrets(key.Namespace).Get(quiet, key.Name, metav1.GetOptions{}); err == nil {
			obj, meta = reload.SecretObject(s), s.ObjectMeta
		}
	default:
		return configEntry{}, fmt.Errorf("read %s %s/%s: not a ConfigMap or Secret", key.Kind, key.Namespace, key.Name)
	}
	if apierrors.IsNotFound(err) {
		return configEntry{}, nil
	}
	if err != nil {
		return configEntry{}, configError(key, err)
	}
	e := configEntry{obj: &obj}
	if w, ok := reload.LastDataWrite(meta.ManagedFields); ok {
		e.write = &w
	}
	return e, nil
}

// configError is one line naming the object (never its content) and what to do.
func configError(key reload.ObjectKey, err error) error {
	resource := "configmaps"
	if key.Kind == reload.Secret {
		resource = "secrets"
	}
	if apierrors.IsForbidden(err) {
		return &apiError{err: err, msg: fmt.Sprintf(
			"get %s %q in namespace %q: forbidden: rollplan needs permission to get %s to checksum what the pods see; check with `kubectl auth can-i get %s -n %s`",
			resource, key.Name, key.Namespace, resource, resource, key.Namespace)}
	}
	return fmt.Errorf("get %s %q in namespace %q: %w", resource, key.Name, key.Namespace, err)
}

// OldestPod returns reload.Pods of rs: its name and the creation time of the oldest pod it
// controls (zero when none), from one LIST of pods with rs's selector in its namespace.
// Errors: the API's, one line naming the LIST.
func OldestPod(ctx context.Context, client kubernetes.Interface, rs *appsv1.ReplicaSet) (reload.Pods, error) {
	out := reload.Pods{ReplicaSet: rs.Name}
	sel, err := metav1.LabelSelectorAsSelector(rs.Spec.Selector)
	if err != nil {
		return out, fmt.Errorf("replicaset %s/%s: spec.selector: %w", rs.Namespace, rs.Name, err)
	}
	pods, err := client.CoreV1().Pods(rs.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return out, fmt.Errorf("list pods of replicaset %s/%s: %w", rs.Namespace, rs.Name, err)
	}
	var oldest time.Time
	for i := range pods.Items {
		p := &pods.Items[i]
		if ref := metav1.GetControllerOf(p); ref == nil || ref.UID != rs.UID || p.DeletionTimestamp != nil {
			continue
		}
		if t := p.CreationTimestamp.Time; oldest.IsZero() || t.Before(oldest) {
			oldest = t
		}
	}
	out.OldestCreated = oldest
	return out, nil
}
