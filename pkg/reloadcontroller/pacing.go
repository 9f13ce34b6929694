package reloadcontroller

import (
	"context"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/watch"
)

// rolloutWaiter wakes a worker waiting for a Deployment's rollout on each informer event of
// that Deployment.
type rolloutWaiter struct {
	mu      sync.Mutex
	waiting map[string]chan struct{}
}

func newRolloutWaiter() *rolloutWaiter { return &rolloutWaiter{waiting: map[string]chan struct{}{}} }

func (w *rolloutWaiter) register(key string) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	w.mu.Lock()
	w.waiting[key] = ch
	w.mu.Unlock()
	return ch, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.waiting[key] == ch {
			delete(w.waiting, key)
		}
	}
}

func (w *rolloutWaiter) poke(key string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if ch, ok := w.waiting[key]; ok {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// waitRollout holds the worker until the restart's rollout of key completes, as `kubectl
// rollout status` judges it (polymorphichelpers.DeploymentStatusViewer, k8s.io/kubectl
// v0.36.3: observedGeneration caught up with patched's generation, every replica updated and
// available, no old pod left), so at most MaxConcurrent rollouts are in flight. It gives up,
// with a Warning Event and a line but no error (the restart was made; retrying would restart
// again), on ProgressDeadlineExceeded, RolloutTimeout, or a deleted or replaced Deployment.
// A paused Deployment never completes: it waits out RolloutTimeout. ctx ending returns
// ctx's cause.
func (c *Controller) waitRollout(ctx context.Context, key string, patched *appsv1.Deployment) error {
	woken, done := c.waiter.register(key)
	defer done()
	timeout := time.NewTimer(c.cfg.RolloutTimeout)
	defer timeout.Stop()
	for {
		d := c.informers.deployment(key)
		if d == nil || d.UID != patched.UID {
			return nil
		}
		_, complete, err := watch.RolloutComplete(d, patched.Generation)
		if complete {
			return nil
		}
		if err != nil {
			c.rolloutFailed(d, err.Error())
			return nil
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-timeout.C:
			c.rolloutFailed(d, "not complete after "+c.cfg.RolloutTimeout.String()+" (--timeout); going on with the next restart")
			return nil
		case <-woken:
		}
	}
}

func (c *Controller) rolloutFailed(d *appsv1.Deployment, why string) {
	c.metrics.rolloutsFailed.WithLabelValues(deploymentKind).Inc()
	msg := "rollout of the config restart did not complete: " + why
	c.cfg.Recorder.Eventf(d, corev1.EventTypeWarning, ReasonRolloutFailed, "%s", msg)
	c.report(Outcome{Type: RolloutFailed, Namespace: d.Namespace, Name: d.Name, Message: msg})
}
