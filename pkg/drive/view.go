package drive

import (
	"context"
	"errors"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// view watches one Deployment and the ReplicaSets its selector matches (client-go
// informers: one list, then a watch), and wakes waiters on every change.
type view struct {
	deployments cache.SharedIndexInformer
	replicaSets cache.SharedIndexInformer
	namespace   string
	name        string
	changed     chan struct{}
	stop        context.CancelFunc
	now         func() time.Time // the clock of wait's time waited
}

// startView starts the informers and waits for their first list. now is the clock.
func startView(ctx context.Context, client kubernetes.Interface, d *appsv1.Deployment, now func() time.Time) (*view, error) {
	selector, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return nil, fmt.Errorf("deployment %s/%s: spec.selector: %w", d.Namespace, d.Name, err)
	}
	ctx, cancel := context.WithCancel(ctx)
	v := &view{namespace: d.Namespace, name: d.Name, changed: make(chan struct{}, 1), stop: cancel, now: now}
	df := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(d.Namespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.FieldSelector = fields.OneTermEqualSelector("metadata.name", d.Name).String()
		}))
	rf := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(d.Namespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = selector.String() }))
	v.deployments = df.Apps().V1().Deployments().Informer()
	v.replicaSets = rf.Apps().V1().ReplicaSets().Informer()
	handler := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { v.poke() },
		UpdateFunc: func(any, any) { v.poke() },
		DeleteFunc: func(any) { v.poke() },
	}
	if _, err := v.deployments.AddEventHandler(handler); err != nil {
		cancel()
		return nil, err
	}
	if _, err := v.replicaSets.AddEventHandler(handler); err != nil {
		cancel()
		return nil, err
	}
	df.Start(ctx.Done())
	rf.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), v.deployments.HasSynced, v.replicaSets.HasSynced) {
		cancel()
		return nil, fmt.Errorf("watch deployment %s/%s and its replicasets: %w", d.Namespace, d.Name, context.Cause(ctx))
	}
	return v, nil
}

func (v *view) poke() {
	select {
	case v.changed <- struct{}{}:
	default:
	}
}

// Close stops the informers.
func (v *view) Close() { v.stop() }

// deployment returns the cached Deployment, nil if deleted.
func (v *view) deployment() *appsv1.Deployment {
	obj, ok, err := v.deployments.GetStore().GetByKey(v.namespace + "/" + v.name)
	if err != nil || !ok {
		return nil
	}
	return obj.(*appsv1.Deployment)
}

// replicaSet returns the cached ReplicaSet called name, nil if absent.
func (v *view) replicaSet(name string) *appsv1.ReplicaSet {
	obj, ok, err := v.replicaSets.GetStore().GetByKey(v.namespace + "/" + name)
	if err != nil || !ok {
		return nil
	}
	return obj.(*appsv1.ReplicaSet)
}

// errTimeout is returned by wait when timeout passes first.
var errTimeout = errors.New("timed out")

// wait evaluates cond on every change of the Deployment or its ReplicaSets (and every tick,
// for the progress display) until it returns done or an error, ctx ends, or timeout passes
// (errTimeout). tick is called about once a second while waiting, with the time waited.
func (v *view) wait(ctx context.Context, timeout time.Duration, cond func() (bool, error), tick func(time.Duration)) error {
	began := v.now()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	ticker := time.NewTicker(time.Second)
	defer ticker.Stop()
	for {
		done, err := cond()
		if err != nil || done {
			return err
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-deadline.C:
			return errTimeout
		case <-v.changed:
		case <-ticker.C:
			if tick != nil {
				tick(v.now().Sub(began))
			}
		}
	}
}
