package reloadcontroller

import (
	"context"
	"errors"
	"maps"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/rollplan/kubectl-rollplan/pkg/reload"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
	"github.com/rollplan/kubectl-rollplan/pkg/workload"
)

// kindKey is the queue key of a StatefulSet or DaemonSet: "StatefulSet:ns/name" (w.Kind()).
// A Deployment's key is "ns/name" (a namespace holds no ':'), so one queue serves the
// three kinds.
func kindKey(w workload.Workload) string {
	m := w.Meta()
	return string(w.Kind()) + ":" + m.GetNamespace() + "/" + m.GetName()
}

// splitKindKey is the kind and "ns/name" of a kindKey; ok false for a Deployment's key.
func splitKindKey(key string) (kind, nsName string, ok bool) { return strings.Cut(key, ":") }

// kindInformers are the StatefulSet and DaemonSet informers (Config.Selector, managedFields
// dropped, indexed by reference as the Deployments'). Run starts them only when the
// identity may list both kinds (probeKinds).
type kindInformers struct {
	factory      informers.SharedInformerFactory
	statefulSets cache.SharedIndexInformer
	daemonSets   cache.SharedIndexInformer
}

func newKindInformers(client kubernetes.Interface, cfg Config) (*kindInformers, error) {
	sel := cfg.Selector
	f := informers.NewSharedInformerFactoryWithOptions(client, resyncPeriod, informers.WithNamespace(cfg.Namespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			if sel != nil {
				o.LabelSelector = sel.String()
			}
		}))
	k := &kindInformers{factory: f, statefulSets: f.Apps().V1().StatefulSets().Informer(), daemonSets: f.Apps().V1().DaemonSets().Informer()}
	for _, inf := range k.all() {
		if err := inf.SetTransform(workloadTransform); err != nil {
			return nil, err
		}
		if err := inf.AddIndexers(cache.Indexers{refIndex: indexWorkloadReferences}); err != nil {
			return nil, err
		}
	}
	return k, nil
}

func (k *kindInformers) all() []cache.SharedIndexInformer {
	return []cache.SharedIndexInformer{k.statefulSets, k.daemonSets}
}

// workloadTransform drops managedFields from a cached StatefulSet or DaemonSet. Idempotent.
func workloadTransform(obj any) (any, error) {
	if o, ok := obj.(runtime.Object); ok {
		if w, err := workload.Of(o); err == nil {
			w.Meta().SetManagedFields(nil)
		}
	}
	return obj, nil
}

// indexWorkloadReferences is refIndex for a StatefulSet or DaemonSet.
func indexWorkloadReferences(obj any) ([]string, error) {
	o, ok := obj.(runtime.Object)
	if !ok {
		return nil, nil
	}
	w, err := workload.Of(o)
	if err != nil {
		return nil, nil
	}
	var keys []string
	for _, r := range reload.References(w.Template()) {
		keys = append(keys, refIndexKey(w.Meta().GetNamespace(), r.Kind, r.Name))
	}
	return keys, nil
}

// get returns the cached object of a kindKey (do not modify it); ok false when absent.
func (k *kindInformers) get(kind, nsName string) (workload.Workload, bool) {
	inf := k.daemonSets
	if kind == string(target.KindStatefulSet) {
		inf = k.statefulSets
	}
	item, exists, err := inf.GetIndexer().GetByKey(nsName)
	if err != nil || !exists {
		return workload.Workload{}, false
	}
	w, err := workload.Of(item.(runtime.Object))
	return w, err == nil
}

// referencing returns the cached StatefulSets and DaemonSets whose pods see ns/kind/name.
func (k *kindInformers) referencing(ns string, kind reload.Kind, name string) []workload.Workload {
	var out []workload.Workload
	for _, inf := range k.all() {
		items, err := inf.GetIndexer().ByIndex(refIndex, refIndexKey(ns, kind, name))
		if err != nil {
			continue
		}
		for _, item := range items {
			if w, err := workload.Of(item.(runtime.Object)); err == nil {
				out = append(out, w)
			}
		}
	}
	return out
}

// list is every cached StatefulSet, then every DaemonSet.
func (k *kindInformers) list() []workload.Workload {
	var out []workload.Workload
	for _, inf := range k.all() {
		for _, item := range inf.GetStore().List() {
			if w, err := workload.Of(item.(runtime.Object)); err == nil {
				out = append(out, w)
			}
		}
	}
	return out
}

// ErrKindsForbidden is probeKinds' answer when the identity may not list StatefulSets or
// DaemonSets: the controller goes on with Deployments alone.
var ErrKindsForbidden = errors.New("StatefulSets and DaemonSets are not watched: this identity may not list them (grant get, list, watch and patch on statefulsets and daemonsets, see deploy/reload)")

// probeKinds lists one StatefulSet and one DaemonSet of namespace ("" all): nil when both
// may be listed, ErrKindsForbidden when either is forbidden, or the LIST's error.
func probeKinds(ctx context.Context, client kubernetes.Interface, namespace string) error {
	lo := metav1.ListOptions{Limit: 1}
	if _, err := client.AppsV1().StatefulSets(namespace).List(ctx, lo); err != nil {
		return kindsProbeError(err)
	}
	if _, err := client.AppsV1().DaemonSets(namespace).List(ctx, lo); err != nil {
		return kindsProbeError(err)
	}
	return nil
}

func kindsProbeError(err error) error {
	if apierrors.IsForbidden(err) {
		return ErrKindsForbidden
	}
	return err
}

// kindChanged queues an opted-in StatefulSet or DaemonSet as deploymentChanged does a
// Deployment: at once when new or its spec or annotations changed, a GracePeriod later on
// a resync, and only wakes a waiting worker on a status update.
func (c *Controller) kindChanged(old, obj any) {
	o, ok := obj.(runtime.Object)
	if !ok {
		return
	}
	w, err := workload.Of(o)
	if err != nil {
		return
	}
	key := kindKey(w)
	m := w.Meta()
	c.countVersion(key, m.GetResourceVersion())
	c.waiter.poke(key)
	if !reload.OptedInWorkload(w) {
		c.forget(key)
		return
	}
	prev, isUpdate := old.(runtime.Object)
	if !isUpdate {
		c.queue.Add(key)
		return
	}
	pw, err := workload.Of(prev)
	if err != nil {
		return
	}
	pm := pw.Meta()
	switch {
	case pm.GetResourceVersion() == m.GetResourceVersion():
		c.queue.AddAfter(key, c.cfg.GracePeriod)
	case pm.GetGeneration() != m.GetGeneration() || !maps.Equal(pm.GetAnnotations(), m.GetAnnotations()):
		c.queue.Add(key)
	}
}

func (c *Controller) kindDeleted(obj any) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	o, ok := obj.(runtime.Object)
	if !ok {
		return
	}
	if w, err := workload.Of(o); err == nil {
		key := kindKey(w)
		c.waiter.poke(key)
		c.forget(key)
	}
}

// resourceOf names w's resource as kubectl does: "statefulset.apps".
func resourceOf(w workload.Workload) string { return strings.ToLower(string(w.Kind())) + ".apps" }

// deploymentKind is the kind label of a Deployment's counters.
const deploymentKind = "Deployment"

// kindOfResource is the kind label of Outcome.Resource: "" Deployment, "statefulset.apps"
// StatefulSet, "daemonset.apps" DaemonSet.
func kindOfResource(resource string) string {
	switch resource {
	case "statefulset.apps":
		return string(target.KindStatefulSet)
	case "daemonset.apps":
		return string(target.KindDaemonSet)
	}
	return deploymentKind
}
