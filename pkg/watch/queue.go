package watch

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
)

// MaxRetries is how many times a failed key is requeued (rate limited) before it is
// dropped: maxRetries of pkg/controller/deployment/deployment_controller.go, v1.36.3.
const MaxRetries = 15

// Queue is a rate-limited workqueue of namespace/name keys (client-go's typed
// rate-limiting queue): a key is processed by one worker at a time, keys added while it is
// processed are coalesced, and a failed sync is retried with the Deployment controller's
// shape (HandleErr).
type Queue struct {
	queue      workqueue.TypedRateLimitingInterface[string]
	maxRetries int
	dropped    func(key string, err error)
}

// NewQueue returns a Queue called name. limiter nil is client-go's default controller
// limiter (per key exponential 5ms to 1000s, overall 10 qps burst 100), as the Deployment
// controller uses; maxRetries <= 0 is MaxRetries. dropped (may be nil) is told of each key
// dropped after maxRetries failures, with the last error.
func NewQueue(name string, limiter workqueue.TypedRateLimiter[string], maxRetries int, dropped func(key string, err error)) *Queue {
	if limiter == nil {
		limiter = workqueue.DefaultTypedControllerRateLimiter[string]()
	}
	if maxRetries <= 0 {
		maxRetries = MaxRetries
	}
	q := workqueue.NewTypedRateLimitingQueueWithConfig(limiter, workqueue.TypedRateLimitingQueueConfig[string]{Name: name})
	return &Queue{queue: q, maxRetries: maxRetries, dropped: dropped}
}

// Add queues key (namespace/name) now.
func (q *Queue) Add(key string) { q.queue.Add(key) }

// AddAfter queues key (namespace/name) once d has passed (at once for d <= 0). A key already
// waiting keeps the earlier of its times, so every AddAfter of a burst within d gives one
// sync, d after the first (client-go's delaying queue; the reload controller's grace
// period).
func (q *Queue) AddAfter(key string, d time.Duration) { q.queue.AddAfter(key, d) }

// Enqueue queues the key of obj (a Kubernetes object, or a deleted one's tombstone).
func (q *Queue) Enqueue(obj any) {
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	q.queue.Add(key)
}

// EventHandler enqueues the object of every add, update and delete (for Cache.AddEventHandler).
func (q *Queue) EventHandler() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    q.Enqueue,
		UpdateFunc: func(_, cur any) { q.Enqueue(cur) },
		DeleteFunc: q.Enqueue,
	}
}

// Len is the number of keys waiting (not those delayed by the rate limiter).
func (q *Queue) Len() int { return q.queue.Len() }

// NumRequeues is how many times key was requeued since it last succeeded.
func (q *Queue) NumRequeues(key string) int { return q.queue.NumRequeues(key) }

// ShutDown stops the queue: ProcessNext returns false once it is drained.
func (q *Queue) ShutDown() { q.queue.ShutDown() }

// ProcessNext takes the next key, calls sync with it and hands the result to HandleErr; it
// returns false when the queue was shut down. Mirrors processNextWorkItem of
// pkg/controller/deployment/deployment_controller.go, v1.36.3.
func (q *Queue) ProcessNext(ctx context.Context, sync func(ctx context.Context, key string) error) bool {
	key, quit := q.queue.Get()
	if quit {
		return false
	}
	defer q.queue.Done(key)
	q.HandleErr(ctx, sync(ctx, key), key)
	return true
}

// HandleErr forgets key after a success (or when its namespace is terminating); after a
// failure it requeues key rate limited while it was requeued fewer than maxRetries times,
// else reports err (utilruntime.HandleError and the dropped callback) and forgets key.
// Mirrors handleErr of pkg/controller/deployment/deployment_controller.go, v1.36.3.
func (q *Queue) HandleErr(ctx context.Context, err error, key string) {
	logger := klog.FromContext(ctx)
	if err == nil || apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
		q.queue.Forget(key)
		return
	}
	ns, name, keyErr := cache.SplitMetaNamespaceKey(key)
	if keyErr != nil {
		logger.Error(err, "Failed to split meta namespace cache key", "cacheKey", key)
	}
	if q.queue.NumRequeues(key) < q.maxRetries {
		logger.V(2).Info("Error syncing", "object", klog.KRef(ns, name), "err", err)
		q.queue.AddRateLimited(key)
		return
	}
	utilruntime.HandleErrorWithContext(ctx, err, "Dropping out of the queue", "object", klog.KRef(ns, name))
	if q.dropped != nil {
		q.dropped(key, err)
	}
	q.queue.Forget(key)
}

// Run runs workers goroutines of ProcessNext with sync until ctx ends, then shuts the
// queue down and returns once they stopped.
func (q *Queue) Run(ctx context.Context, workers int, sync func(ctx context.Context, key string) error) {
	done := make(chan struct{})
	for range workers {
		go func() {
			defer func() { done <- struct{}{} }()
			wait.UntilWithContext(ctx, func(ctx context.Context) {
				for q.ProcessNext(ctx, sync) {
				}
			}, time.Second)
		}()
	}
	<-ctx.Done()
	q.queue.ShutDown()
	for range workers {
		<-done
	}
}
