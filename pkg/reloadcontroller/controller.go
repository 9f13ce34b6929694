package reloadcontroller

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/labels"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/rollplan/kubectl-rollplan/pkg/kube"
	"github.com/rollplan/kubectl-rollplan/pkg/reload"
	"github.com/rollplan/kubectl-rollplan/pkg/watch"
)

// Config is what `kubectl rollplan reload --watch` asks of the controller.
type Config struct {
	// Namespace to watch; "" watches every namespace (-A).
	Namespace string
	// Selector selects the Deployments (-l); nil selects every one. Only those opted in
	// (reload.OptedIn) are ever restarted.
	Selector labels.Selector
	// GracePeriod compacts a burst of changes: a Deployment is synced GracePeriod after the
	// first change that asked for it, so changes within it give one restart (--grace-period;
	// 0: at once).
	GracePeriod time.Duration
	// MaxConcurrent is how many restarts may roll out at once (--max-concurrent, >= 1): each
	// of that many workers restarts one Deployment and waits for its rollout to complete
	// (or RolloutTimeout) before taking the next.
	MaxConcurrent int
	// RolloutTimeout bounds the wait for one restart's rollout (--timeout); 0 is 10 minutes.
	RolloutTimeout time.Duration
	// FieldManager records the restart and adopt patches in managedFields (--field-manager;
	// "": kube.ReloadFieldManager, rollplan-reload).
	FieldManager string
	// KeepData keeps whole ConfigMaps and Secrets in the cache (no DigestTransform): only
	// for the memory benchmark's comparison.
	KeepData bool
	// Report is told each Outcome: a restart, an adoption, a refusal, a failed rollout, a
	// key given up (nil: none; each is also logged and recorded as an Event). Names and keys
	// only, never a value.
	Report func(Outcome)
	// Warn is told, once, a line the user should see that is no outcome of one object:
	// StatefulSets and DaemonSets not watched for want of permission (nil: klog only).
	Warn func(string)
	// Recorder records the Events on restarted Deployments (nil: none).
	Recorder *kube.Recorder
	// Metrics receives the controller's metrics (nil: NewMetrics(nil), unregistered).
	Metrics *Metrics
	// Limiter is the queue's rate limiter (nil: client-go's default controller limiter).
	Limiter workqueue.TypedRateLimiter[string]
	// Now is the clock of the latency histogram (nil: time.Now).
	Now func() time.Time
}

// DefaultRolloutTimeout is the wait for one restart's rollout when Config.RolloutTimeout is 0.
const DefaultRolloutTimeout = 10 * time.Minute

// Controller restarts opted-in Deployments whose pods run with changed ConfigMaps or
// Secrets: shared informers of Deployments, ConfigMaps and Secrets (config data dropped by
// DigestTransform) feed a rate-limited queue of Deployment keys (pkg/watch.Queue); a worker
// asks reload.Decide and restarts with reload.RestartPatch through pkg/kube. State lives in
// the Deployments' rollplan.dev/config-checksums annotations, so a controller started after
// a change restarts exactly the stale Deployments. Build it with New, then Run.
type Controller struct {
	client    kubernetes.Interface
	cfg       Config
	now       func() time.Time
	informers *informerSet
	kinds     *kindInformers
	queue     *watch.Queue
	metrics   *Metrics
	waiter    *rolloutWaiter

	mu      sync.Mutex
	pending map[string]time.Time // Deployment key -> first change not yet processed
	refused map[string]string    // Deployment key -> last refusal reported
	seenRV  map[string]string    // object key -> last resourceVersion seen (metrics)
	leading bool
	// kindsWatched: the StatefulSet and DaemonSet informers run (Run's probe allowed them).
	kindsWatched bool
}

// New builds a Controller on client (informers not started). Errors: MaxConcurrent < 1 or a
// negative GracePeriod, and an informer that refuses its transform or index.
func New(client kubernetes.Interface, cfg Config) (*Controller, error) {
	if cfg.MaxConcurrent < 1 {
		return nil, fmt.Errorf("--max-concurrent must be at least 1, got %d", cfg.MaxConcurrent)
	}
	if cfg.GracePeriod < 0 {
		return nil, fmt.Errorf("--grace-period must not be negative, got %v", cfg.GracePeriod)
	}
	if cfg.RolloutTimeout <= 0 {
		cfg.RolloutTimeout = DefaultRolloutTimeout
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	inf, err := newInformerSet(client, cfg)
	if err != nil {
		return nil, fmt.Errorf("reload informers: %w", err)
	}
	kinds, err := newKindInformers(client, cfg)
	if err != nil {
		return nil, fmt.Errorf("reload informers: %w", err)
	}
	m := cfg.Metrics
	if m == nil {
		m = NewMetrics(nil)
	}
	c := &Controller{
		client: client, cfg: cfg, now: now, informers: inf, kinds: kinds, metrics: m,
		waiter:  newRolloutWaiter(),
		pending: map[string]time.Time{},
		refused: map[string]string{}, seenRV: map[string]string{},
	}
	c.queue = watch.NewQueue("rollplan-reload", cfg.Limiter, 0, c.dropped)
	m.observe(c)
	if err := c.addHandlers(); err != nil {
		return nil, err
	}
	return c, nil
}

// addHandlers routes informer events: a ConfigMap or Secret change queues every Deployment
// that references it, a Deployment event queues that Deployment, each GracePeriod later.
func (c *Controller) addHandlers() error {
	configHandler := cache.ResourceEventHandlerDetailedFuncs{
		AddFunc:    func(obj any, initial bool) { c.configChanged(obj, !initial) },
		UpdateFunc: func(_, obj any) { c.configChanged(obj, true) },
		DeleteFunc: func(obj any) { c.configChanged(obj, true) },
	}
	for _, inf := range []cache.SharedIndexInformer{c.informers.configMaps, c.informers.secrets} {
		if _, err := inf.AddEventHandler(configHandler); err != nil {
			return err
		}
	}
	_, err := c.informers.deployments.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { c.deploymentChanged(nil, obj) },
		UpdateFunc: func(old, obj any) { c.deploymentChanged(old, obj) },
		DeleteFunc: c.deploymentDeleted,
	})
	if err != nil {
		return err
	}
	for _, inf := range c.kinds.all() {
		if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { c.kindChanged(nil, obj) },
			UpdateFunc: c.kindChanged,
			DeleteFunc: c.kindDeleted,
		}); err != nil {
			return err
		}
	}
	return nil
}

// configChanged queues, GracePeriod from now, every Deployment that references the changed
// ConfigMap or Secret, and marks a change pending for each (the latency histogram's start).
// An object of the informer's first list is no change (changed false): the workers' initial
// sync queues every Deployment.
func (c *Controller) configChanged(obj any, changed bool) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	var ns, name, rv string
	var kind reload.Kind
	switch o := obj.(type) {
	case *ConfigObject:
		ns, name, rv, kind = o.Namespace, o.Name, o.ResourceVersion, o.Object.Kind
	case interface{ GetNamespace() string }:
		ns = o.GetNamespace()
		kind, name, rv = kindOf(obj)
	}
	if name == "" {
		return
	}
	c.countVersion(string(kind)+"/"+ns+"/"+name, rv)
	if !changed {
		return
	}
	now := c.now()
	for _, d := range c.informers.referencing(ns, kind, name) {
		if !reload.OptedIn(d) {
			continue
		}
		key := d.Namespace + "/" + d.Name
		c.markPending(key, now)
		c.queue.AddAfter(key, c.cfg.GracePeriod)
	}
	for _, w := range c.kinds.referencing(ns, kind, name) {
		if !reload.OptedInWorkload(w) {
			continue
		}
		key := kindKey(w)
		c.markPending(key, now)
		c.queue.AddAfter(key, c.cfg.GracePeriod)
	}
}

// deploymentChanged queues an opted-in Deployment when what a decision reads may have
// changed: at once when it is new or its spec or annotations changed (a new reference, an
// adoption, a restart, an opt-in), a GracePeriod later on a resync or relist (same
// resourceVersion: the safety net). A status-only update queues nothing (a queued key's
// time stays the grace period after the config change that asked for it); it only wakes a
// worker waiting for that rollout.
func (c *Controller) deploymentChanged(old, obj any) {
	d, ok := obj.(*appsv1.Deployment)
	if !ok {
		return
	}
	key := d.Namespace + "/" + d.Name
	c.countVersion("Deployment/"+key, d.ResourceVersion)
	c.waiter.poke(key)
	if !reload.OptedIn(d) {
		c.forget(key)
		return
	}
	o, isUpdate := old.(*appsv1.Deployment)
	switch {
	case !isUpdate:
		c.queue.Add(key)
	case o.ResourceVersion == d.ResourceVersion:
		c.queue.AddAfter(key, c.cfg.GracePeriod)
	case o.Generation != d.Generation || !maps.Equal(o.Annotations, d.Annotations):
		c.queue.Add(key)
	}
}

func (c *Controller) deploymentDeleted(obj any) {
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	c.waiter.poke(key)
	c.forget(key)
}

// Run starts the informers, waits for their caches, and restarts stale Deployments with
// MaxConcurrent workers until ctx ends; with le (leader election, may be nil) the workers
// run only while this process holds the Lease. Every cached opted-in Deployment is queued
// when the workers start (the initial sync: nothing missed while no watcher ran). Errors:
// the caches could not sync before ctx ended, or the Lease was lost (ErrLeaderLost).
func (c *Controller) Run(ctx context.Context, le *LeaderElection) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c.informers.start(ctx.Done())
	synced := c.informers.synced()
	if c.startKinds(ctx) {
		for _, inf := range c.kinds.all() {
			synced = append(synced, inf.HasSynced)
		}
	}
	if !cache.WaitForCacheSync(ctx.Done(), synced...) {
		return fmt.Errorf("watch deployments, statefulsets, daemonsets, configmaps and secrets: caches not synced: %w", context.Cause(ctx))
	}
	if le == nil {
		c.runWorkers(ctx)
		return nil
	}
	return le.run(ctx, c.runWorkers)
}

// startKinds starts the StatefulSet and DaemonSet informers when the identity may list
// both kinds (probeKinds); otherwise it says so once (Config.Warn, klog) and the controller
// goes on with Deployments alone. It reports whether they were started.
func (c *Controller) startKinds(ctx context.Context) bool {
	if err := probeKinds(ctx, c.client, c.cfg.Namespace); err != nil {
		msg := err.Error()
		if !errors.Is(err, ErrKindsForbidden) {
			msg = "StatefulSets and DaemonSets are not watched: " + msg
		}
		klog.InfoS(msg)
		if c.cfg.Warn != nil {
			c.cfg.Warn(msg)
		}
		return false
	}
	c.kinds.factory.Start(ctx.Done())
	c.mu.Lock()
	c.kindsWatched = true
	c.mu.Unlock()
	return true
}

// ErrLeaderLost is returned by Run when the Lease was lost while leading.
var ErrLeaderLost = errors.New("leader election lost")

// runWorkers queues every cached opted-in Deployment (at once: what changed while no
// watcher ran is restarted now), then runs the workers until ctx ends.
func (c *Controller) runWorkers(ctx context.Context) {
	c.setLeading(true)
	defer c.setLeading(false)
	for _, d := range c.informers.allDeployments() {
		if reload.OptedIn(d) {
			c.queue.Add(d.Namespace + "/" + d.Name)
		}
	}
	for _, w := range c.kinds.list() {
		if reload.OptedInWorkload(w) {
			c.queue.Add(kindKey(w))
		}
	}
	c.queue.Run(ctx, c.cfg.MaxConcurrent, c.syncReported)
}

// syncReported is sync, with a failure reported (utilruntime.HandleError: klog, rate
// limited) before the queue retries it.
func (c *Controller) syncReported(ctx context.Context, key string) error {
	err := c.sync(ctx, key)
	if err != nil && ctx.Err() == nil {
		utilruntime.HandleErrorWithContext(ctx, err, "Config reload failed, retrying", "deployment", key)
	}
	return err
}

// Synced reports whether the informers' first lists are in the cache (/readyz).
func (c *Controller) Synced() bool {
	c.mu.Lock()
	kinds := c.kindsWatched
	c.mu.Unlock()
	if kinds {
		for _, inf := range c.kinds.all() {
			if !inf.HasSynced() {
				return false
			}
		}
	}
	return c.informers.hasSynced()
}

// Leading reports whether the workers run (always once started without leader election).
func (c *Controller) Leading() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.leading
}

func (c *Controller) setLeading(v bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.leading = v
}

func (c *Controller) markPending(key string, t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.pending[key]; !ok {
		c.pending[key] = t
	}
}

// takePending removes and returns the pending change time of key.
func (c *Controller) takePending(key string) (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.pending[key]
	delete(c.pending, key)
	return t, ok
}

// forget drops what the controller remembers of a deleted or opted-out Deployment.
func (c *Controller) forget(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.pending, key)
	delete(c.refused, key)
}

// countVersion counts a resourceVersion of an object not seen before (XING's
// resource_versions_total).
func (c *Controller) countVersion(key, rv string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if rv == "" || c.seenRV[key] == rv {
		return
	}
	c.seenRV[key] = rv
	c.metrics.resourceVersions.Inc()
}

func (c *Controller) dropped(key string, err error) {
	resource, name := "", key
	if kind, nsName, ok := splitKindKey(key); ok {
		resource, name = strings.ToLower(kind)+".apps", nsName
	}
	c.report(Outcome{Type: GaveUp, Resource: resource, Name: name, Message: fmt.Sprintf("giving up after %d tries (the next change or resync tries again): %v", watch.MaxRetries, err)})
}
