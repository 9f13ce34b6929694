package watch

import (
	"context"
	"fmt"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
)

// Options say what a Cache watches in one namespace, or in all of them.
type Options struct {
	// Namespace to watch; metav1.NamespaceAll ("") watches every namespace (as -A does).
	Namespace string
	// Name limits the Deployments to the one of that name (a field selector on
	// metadata.name); "" watches every Deployment Selector matches.
	Name string
	// Selector selects the Deployments when Name is "" (nil: every Deployment).
	Selector labels.Selector
	// ReplicaSets selects the ReplicaSets (and pods) to watch (nil: every one in Namespace).
	ReplicaSets labels.Selector
	// Pods also watches the pods ReplicaSets selects.
	Pods bool
	// Now is the clock of Wait's time waited (nil: time.Now).
	Now func() time.Time
	// Reread: Wait reads the Deployments and ReplicaSets again (a LIST each, from the API
	// server) when no watched object changed for this long (0: never; ForDeployment:
	// DefaultReread). A watch can stay open and silent (seen after an etcd restart): the
	// wait then decides from the fresh read instead of waiting for its timeout.
	Reread time.Duration
}

// DefaultReread is ForDeployment's Options.Reread: 10 s without a change, a small price
// (two LISTs of one Deployment's objects) against a drive stuck for its whole timeout.
const DefaultReread = 10 * time.Second

// Cache holds shared informers and listers of Deployments, their ReplicaSets and (with
// Options.Pods) their pods in one namespace, or in all (metav1.NamespaceAll): one list each,
// then a watch. Every change wakes Wait. Use Start, then Close.
type Cache struct {
	namespace   string
	client      kubernetes.Interface
	opts        Options
	now         func() time.Time
	changed     chan struct{}
	stop        context.CancelFunc
	deployments cache.SharedIndexInformer
	replicaSets cache.SharedIndexInformer
	pods        cache.SharedIndexInformer // nil without Options.Pods
	dLister     appslisters.DeploymentLister
	rsLister    appslisters.ReplicaSetLister
	podLister   corelisters.PodLister

	mu    sync.Mutex
	fresh reread // the last re-read (Options.Reread), used where newer than the informers'
}

// reread is what Cache.reread listed: Deployments and ReplicaSets by name, with each
// list's resourceVersion.
type reread struct {
	deployments, replicaSets     map[string]runtime.Object
	deploymentsRV, replicaSetsRV string
}

// ForDeployment starts a Cache of Deployment d (by name) and the ReplicaSets its selector
// matches. now is Wait's clock (nil: time.Now). Errors: an invalid spec.selector, and those
// of Start.
func ForDeployment(ctx context.Context, client kubernetes.Interface, d *appsv1.Deployment, now func() time.Time) (*Cache, error) {
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return nil, fmt.Errorf("deployment %s/%s: spec.selector: %w", d.Namespace, d.Name, err)
	}
	return Start(ctx, client, Options{Namespace: d.Namespace, Name: d.Name, ReplicaSets: sel, Now: now, Reread: DefaultReread})
}

// Start starts the informers opts ask for and waits until their first lists are in the
// cache. The informers stop with Close or when ctx ends. Errors: ctx ends before the caches
// synced (its cause), or an event handler could not be added.
func Start(ctx context.Context, client kubernetes.Interface, opts Options) (*Cache, error) {
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	ctx, cancel := context.WithCancel(ctx)
	c := &Cache{namespace: opts.Namespace, client: client, opts: opts, now: now, changed: make(chan struct{}, 1), stop: cancel}
	df := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(opts.Namespace),
		informers.WithTweakListOptions(opts.deploymentList))
	rf := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(opts.Namespace),
		informers.WithTweakListOptions(opts.replicaSetList))
	c.deployments, c.dLister = df.Apps().V1().Deployments().Informer(), df.Apps().V1().Deployments().Lister()
	c.replicaSets, c.rsLister = rf.Apps().V1().ReplicaSets().Informer(), rf.Apps().V1().ReplicaSets().Lister()
	synced := []cache.InformerSynced{c.deployments.HasSynced, c.replicaSets.HasSynced}
	if opts.Pods {
		c.pods, c.podLister = rf.Core().V1().Pods().Informer(), rf.Core().V1().Pods().Lister()
		synced = append(synced, c.pods.HasSynced)
	}
	if _, err := c.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { c.poke() },
		UpdateFunc: func(any, any) { c.poke() },
		DeleteFunc: func(any) { c.poke() },
	}); err != nil {
		cancel()
		return nil, err
	}
	df.Start(ctx.Done())
	rf.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), synced...) {
		cancel()
		return nil, fmt.Errorf("watch deployments and replicasets %s: %w", inNamespace(opts.Namespace), context.Cause(ctx))
	}
	return c, nil
}

// deploymentList sets o to select the Deployments opts watch.
func (opts Options) deploymentList(o *metav1.ListOptions) {
	if opts.Name != "" {
		o.FieldSelector = fields.OneTermEqualSelector("metadata.name", opts.Name).String()
	} else if opts.Selector != nil {
		o.LabelSelector = opts.Selector.String()
	}
}

// replicaSetList sets o to select the ReplicaSets opts watch.
func (opts Options) replicaSetList(o *metav1.ListOptions) {
	if opts.ReplicaSets != nil {
		o.LabelSelector = opts.ReplicaSets.String()
	}
}

// inNamespace is "in namespace NS", or "in all namespaces" for metav1.NamespaceAll.
func inNamespace(ns string) string {
	if ns == metav1.NamespaceAll {
		return "in all namespaces"
	}
	return "in namespace " + ns
}

// AddEventHandler adds h to every informer of the cache (Deployments, ReplicaSets, pods):
// for example a Queue's EventHandler. It returns the registrations, in that order.
func (c *Cache) AddEventHandler(h cache.ResourceEventHandler) ([]cache.ResourceEventHandlerRegistration, error) {
	var regs []cache.ResourceEventHandlerRegistration
	for _, inf := range []cache.SharedIndexInformer{c.deployments, c.replicaSets, c.pods} {
		if inf == nil {
			continue
		}
		r, err := inf.AddEventHandler(h)
		if err != nil {
			return regs, err
		}
		regs = append(regs, r)
	}
	return regs, nil
}

func (c *Cache) poke() {
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

// Close stops the informers.
func (c *Cache) Close() { c.stop() }

// Deployments is the Deployment lister, of every namespace for a Cache of
// metav1.NamespaceAll (cached objects: do not modify them).
func (c *Cache) Deployments() appslisters.DeploymentNamespaceLister {
	return c.dLister.Deployments(c.namespace)
}

// ReplicaSets is the ReplicaSet lister (cached objects: do not modify them).
func (c *Cache) ReplicaSets() appslisters.ReplicaSetNamespaceLister {
	return c.rsLister.ReplicaSets(c.namespace)
}

// Pods is the pod lister, nil without Options.Pods (cached objects: do not modify them).
func (c *Cache) Pods() corelisters.PodNamespaceLister {
	if c.podLister == nil {
		return nil
	}
	return c.podLister.Pods(c.namespace)
}

// Deployment returns the cached Deployment called name, nil if absent (deleted, or not
// watched, or the Cache is of metav1.NamespaceAll: a name needs its namespace).
func (c *Cache) Deployment(name string) *appsv1.Deployment {
	d, err := c.Deployments().Get(name)
	if err != nil {
		d = nil
	}
	c.mu.Lock()
	f, _ := c.fresh.deployments[name].(*appsv1.Deployment)
	rv := c.fresh.deploymentsRV
	c.mu.Unlock()
	if f != nil && useReread(objectOrNil(d), f, c.deployments.LastSyncResourceVersion(), rv) {
		return f
	}
	return d
}

// ReplicaSet returns the cached ReplicaSet called name, nil if absent (or, as Deployment,
// the Cache is of metav1.NamespaceAll).
func (c *Cache) ReplicaSet(name string) *appsv1.ReplicaSet {
	rs, err := c.ReplicaSets().Get(name)
	if err != nil {
		rs = nil
	}
	c.mu.Lock()
	f, _ := c.fresh.replicaSets[name].(*appsv1.ReplicaSet)
	rv := c.fresh.replicaSetsRV
	c.mu.Unlock()
	if f != nil && useReread(objectOrNil(rs), f, c.replicaSets.LastSyncResourceVersion(), rv) {
		return f
	}
	return rs
}

// useReread reports whether the last re-read's copy of an object (reread, nil if it had
// none) is newer than the informer's (cached, nil if it has none): by resourceVersion
// (resourceversion.CompareResourceVersion) when both exist. An object the informer lacks
// is the re-read's until the informer has synced (informerRV) past the re-read's list
// (listRV); one the re-read lacks (created since) is the informer's.
func useReread(cached, reread metav1.Object, informerRV, listRV string) bool {
	switch {
	case reread == nil:
		return false
	case cached == nil:
		c, err := resourceversion.CompareResourceVersion(informerRV, listRV)
		return err != nil || c < 0
	}
	c, err := resourceversion.CompareResourceVersion(reread.GetResourceVersion(), cached.GetResourceVersion())
	return err == nil && c > 0
}

// objectOrNil is o as a metav1.Object, nil (not a typed nil) when o is nil.
func objectOrNil[T interface {
	*appsv1.Deployment | *appsv1.ReplicaSet
	metav1.Object
}](o T) metav1.Object {
	if o == nil {
		return nil
	}
	return o
}

// reread lists the watched Deployments and ReplicaSets from the API server (a consistent
// LIST each, within 10 s) and keeps them for Deployment and ReplicaSet, then wakes Wait.
// An error leaves the last re-read in place (the next one may answer).
func (c *Cache) reread(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var dOpts, rOpts metav1.ListOptions
	c.opts.deploymentList(&dOpts)
	c.opts.replicaSetList(&rOpts)
	dl, err := c.client.AppsV1().Deployments(c.namespace).List(ctx, dOpts)
	if err != nil {
		return
	}
	rl, err := c.client.AppsV1().ReplicaSets(c.namespace).List(ctx, rOpts)
	if err != nil {
		return
	}
	f := reread{deployments: map[string]runtime.Object{}, replicaSets: map[string]runtime.Object{},
		deploymentsRV: dl.ResourceVersion, replicaSetsRV: rl.ResourceVersion}
	for i := range dl.Items {
		f.deployments[dl.Items[i].Name] = &dl.Items[i]
	}
	for i := range rl.Items {
		f.replicaSets[rl.Items[i].Name] = &rl.Items[i]
	}
	c.mu.Lock()
	c.fresh = f
	c.mu.Unlock()
	c.poke()
}

// Wait evaluates cond now and on every change of a watched object (and about once a
// second, calling tick with the time waited when tick is not nil) until cond returns done
// or an error, ctx ends (its cause), or timeout passes (ErrTimeout).
//
// With Options.Reread, a wait during which nothing changed for that long reads the
// Deployments and ReplicaSets again (reread), and Deployment and ReplicaSet answer with the
// newer of the informers' copy and the re-read's: a watch that stays open but silent does
// not hold the wait until its timeout.
func (c *Cache) Wait(ctx context.Context, timeout time.Duration, cond Cond, tick Tick) error {
	var again func()
	if c.opts.Reread > 0 {
		again = func() { c.reread(ctx) }
	}
	return waitOn(ctx, c.changed, timeout, cond, tick, c.now, c.opts.Reread, again)
}
