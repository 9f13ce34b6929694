package stsdrive

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// DefaultResync is Options.Resync: the walk reads the StatefulSet and its pods again after
// this long without a change notification (a watch can stay open and silent, seen after an
// etcd restart; pkg/watch.DefaultReread is the same guard for Deployment drive).
const DefaultResync = 10 * time.Second

// syncWait bounds how long the walk waits for the informers' first list before it reads
// anyway (the resync covers a change it misses meanwhile).
const syncWait = 5 * time.Second

// changes wakes the walk on every change of one StatefulSet (by name: a field selector on
// metadata.name) or of the pods its selector matches: two client-go informers whose event
// handlers signal C (buffered, one pending wake: changes seen while the walk decides
// collapse into one more read). The walk reads the objects itself (live.Load): the
// informers only say when.
type changes struct {
	C         chan struct{}
	stop      context.CancelFunc
	factories []informers.SharedInformerFactory
}

// watchChanges starts the informers of sts and its pods and waits (at most syncWait) for
// their first list. Errors: an invalid spec.selector.
func watchChanges(ctx context.Context, cs kubernetes.Interface, sts *appsv1.StatefulSet) (*changes, error) {
	sel, err := metav1.LabelSelectorAsSelector(sts.Spec.Selector)
	if err != nil {
		return nil, fmt.Errorf("statefulset %s/%s: invalid spec.selector: %v", sts.Namespace, sts.Name, err)
	}
	ctx, stop := context.WithCancel(ctx)
	byName := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(sts.Namespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.FieldSelector = fields.OneTermEqualSelector("metadata.name", sts.Name).String()
		}))
	bySelector := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(sts.Namespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = sel.String() }))
	c := &changes{C: make(chan struct{}, 1), stop: stop, factories: []informers.SharedInformerFactory{byName, bySelector}}
	h := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { c.wake() },
		UpdateFunc: func(any, any) { c.wake() },
		DeleteFunc: func(any) { c.wake() },
	}
	for _, inf := range []cache.SharedIndexInformer{byName.Apps().V1().StatefulSets().Informer(), bySelector.Core().V1().Pods().Informer()} {
		if _, err := inf.AddEventHandler(h); err != nil {
			c.close()
			return nil, err
		}
	}
	byName.Start(ctx.Done())
	bySelector.Start(ctx.Done())
	sctx, cancel := context.WithTimeout(ctx, syncWait)
	defer cancel()
	byName.WaitForCacheSync(sctx.Done())
	bySelector.WaitForCacheSync(sctx.Done())
	return c, nil
}

func (c *changes) wake() {
	select {
	case c.C <- struct{}{}:
	default: // a wake is pending already
	}
}

// drain drops a pending wake (the informers' initial list): the walk reads next anyway.
func (c *changes) drain() {
	select {
	case <-c.C:
	default:
	}
}

// close stops the informers and waits for their goroutines.
func (c *changes) close() {
	c.stop()
	for _, f := range c.factories {
		f.Shutdown()
	}
}
