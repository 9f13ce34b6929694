package reloadcontroller

import (
	"fmt"
	"maps"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/rollplan/kubectl-rollplan/pkg/reload"
)

// ConfigObject is what the ConfigMap and Secret informers keep in place of the object (their
// transform, DigestTransform): its identity, one digest per key (reload.Object) and when its
// data was last written, never a value, no annotations (kubectl apply's
// last-applied-configuration holds the whole data) and no managedFields. Memory per object
// is then about 100 bytes per key whatever the size of the values, and the cache holds no
// Secret value.
type ConfigObject struct {
	metav1.TypeMeta
	metav1.ObjectMeta
	// Object holds the kind, name, UID and one digest per key of data and binaryData.
	Object reload.Object
	// DataWrite is reload.LastDataWrite of the object's managedFields (the first-sight
	// evidence: its time and field manager), nil when no entry owns data.
	DataWrite *reload.DataWrite
}

// DeepCopyObject implements runtime.Object (the informer's store wants one).
func (c *ConfigObject) DeepCopyObject() runtime.Object {
	out := &ConfigObject{TypeMeta: c.TypeMeta, Object: c.Object}
	c.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if c.DataWrite != nil {
		w := *c.DataWrite
		out.DataWrite = &w
	}
	out.Object.Digests = maps.Clone(c.Object.Digests)
	return out
}

// DigestTransform is the informers' transform (cache.TransformFunc) of ConfigMaps and
// Secrets: a *corev1.ConfigMap or *corev1.Secret becomes a *ConfigObject (name, namespace,
// UID, resourceVersion, the digests of reload.ConfigMapObject / reload.SecretObject, and
// the last data write of its managedFields);
// a *ConfigObject is returned as it is (a transform must be idempotent); anything else is an
// error naming its type.
func DigestTransform(obj any) (any, error) {
	switch o := obj.(type) {
	case *corev1.ConfigMap:
		return newConfigObject(o.ObjectMeta, reload.ConfigMapObject(o)), nil
	case *corev1.Secret:
		return newConfigObject(o.ObjectMeta, reload.SecretObject(o)), nil
	case *ConfigObject:
		return o, nil
	}
	return nil, fmt.Errorf("reload informer transform: unexpected object %T", obj)
}

func newConfigObject(m metav1.ObjectMeta, o reload.Object) *ConfigObject {
	c := &ConfigObject{
		ObjectMeta: metav1.ObjectMeta{Name: m.Name, Namespace: m.Namespace, UID: m.UID, ResourceVersion: m.ResourceVersion},
		Object:     o,
	}
	if w, ok := reload.LastDataWrite(m.ManagedFields); ok {
		c.DataWrite = &w
	}
	return c
}

// deploymentTransform drops managedFields from a cached Deployment: no decision reads them
// (annotations are kept: pkg/kube compares them before renewing a guard). Idempotent.
func deploymentTransform(obj any) (any, error) {
	if d, ok := obj.(*appsv1.Deployment); ok {
		d.ManagedFields = nil
	}
	return obj, nil
}

// refIndex is the Deployment informer's index from "namespace/Kind/name" of each ConfigMap
// and Secret a Deployment's pods see (reload.References) to the Deployment.
const refIndex = "reload-references"

func refIndexKey(namespace string, kind reload.Kind, name string) string {
	return namespace + "/" + string(kind) + "/" + name
}

func indexReferences(obj any) ([]string, error) {
	d, ok := obj.(*appsv1.Deployment)
	if !ok {
		return nil, nil
	}
	var keys []string
	for _, r := range reload.References(&d.Spec.Template) {
		keys = append(keys, refIndexKey(d.Namespace, r.Kind, r.Name))
	}
	return keys, nil
}

// informerSet is the controller's three shared informers in Config.Namespace ("" every
// namespace): Deployments (Config.Selector, managedFields dropped, indexed by reference),
// ConfigMaps and Secrets (DigestTransform unless Config.KeepData).
type informerSet struct {
	factories   []informers.SharedInformerFactory
	deployments cache.SharedIndexInformer
	configMaps  cache.SharedIndexInformer
	secrets     cache.SharedIndexInformer
}

func newInformerSet(client kubernetes.Interface, cfg Config) (*informerSet, error) {
	opts := []informers.SharedInformerOption{informers.WithNamespace(cfg.Namespace)}
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, opts...)
	sel := cfg.Selector
	dFactory := informers.NewSharedInformerFactoryWithOptions(client, resyncPeriod, append(opts, informers.WithTweakListOptions(func(o *metav1.ListOptions) {
		if sel != nil {
			o.LabelSelector = sel.String()
		}
	}))...)
	s := &informerSet{
		factories:   []informers.SharedInformerFactory{factory, dFactory},
		deployments: dFactory.Apps().V1().Deployments().Informer(),
		configMaps:  factory.Core().V1().ConfigMaps().Informer(),
		secrets:     factory.Core().V1().Secrets().Informer(),
	}
	if err := s.deployments.SetTransform(deploymentTransform); err != nil {
		return nil, err
	}
	if err := s.deployments.AddIndexers(cache.Indexers{refIndex: indexReferences}); err != nil {
		return nil, err
	}
	if !cfg.KeepData {
		for _, inf := range []cache.SharedIndexInformer{s.configMaps, s.secrets} {
			if err := inf.SetTransform(DigestTransform); err != nil {
				return nil, err
			}
		}
	}
	return s, nil
}

// start starts the informers; they stop when stop is closed.
func (s *informerSet) start(stop <-chan struct{}) {
	for _, f := range s.factories {
		f.Start(stop)
	}
}

func (s *informerSet) synced() []cache.InformerSynced {
	return []cache.InformerSynced{s.deployments.HasSynced, s.configMaps.HasSynced, s.secrets.HasSynced}
}

func (s *informerSet) hasSynced() bool {
	for _, f := range s.synced() {
		if !f() {
			return false
		}
	}
	return true
}

// object returns the cached ConfigObject of the ConfigMap or Secret ns/name, nil when it is
// not there. Without the transform (Config.KeepData) it transforms the cached object.
func (s *informerSet) object(ns string, kind reload.Kind, name string) *ConfigObject {
	inf := s.configMaps
	if kind == reload.Secret {
		inf = s.secrets
	}
	item, exists, err := inf.GetIndexer().GetByKey(ns + "/" + name)
	if err != nil || !exists {
		return nil
	}
	o, err := DigestTransform(item)
	if err != nil {
		return nil
	}
	return o.(*ConfigObject)
}

// deployment returns the cached Deployment ns/name (do not modify it), nil if absent.
func (s *informerSet) deployment(key string) *appsv1.Deployment {
	item, exists, err := s.deployments.GetIndexer().GetByKey(key)
	if err != nil || !exists {
		return nil
	}
	d, _ := item.(*appsv1.Deployment)
	return d
}

// referencing returns the cached Deployments whose pods see ns/kind/name.
func (s *informerSet) referencing(ns string, kind reload.Kind, name string) []*appsv1.Deployment {
	items, err := s.deployments.GetIndexer().ByIndex(refIndex, refIndexKey(ns, kind, name))
	if err != nil {
		return nil
	}
	out := make([]*appsv1.Deployment, 0, len(items))
	for _, item := range items {
		if d, ok := item.(*appsv1.Deployment); ok {
			out = append(out, d)
		}
	}
	return out
}

// allDeployments is every cached Deployment.
func (s *informerSet) allDeployments() []*appsv1.Deployment {
	var out []*appsv1.Deployment
	for _, item := range s.deployments.GetStore().List() {
		if d, ok := item.(*appsv1.Deployment); ok {
			out = append(out, d)
		}
	}
	return out
}

// resyncPeriod is how often every cached Deployment is handed to the handlers again (a
// safety net: a key the queue dropped after MaxRetries is tried again).
const resyncPeriod = 10 * time.Minute
