package drive

import (
	"context"
	"sync/atomic"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/kube"
)

// retry runs fn (one API call, or a read of several) through transient failures with the
// one policy (kube.Retry, kube.TransientBackoff): for as long as the step's progress
// timeout allows, and while this driver holds a lease, no attempt after it lapsed (leaseOK:
// the renewal goroutine then ends the run). what names the call in the progress lines: the
// first failure is reported, and the recovery with the number of retries.
func (d *Driver) retry(ctx context.Context, what string, fn func(ctx context.Context, retried bool) error) error {
	return d.retryUntil(ctx, d.now().Add(d.progressTimeout()), what, true, fn)
}

// retryUntil is retry with an explicit deadline (the lease's expiry for a state write).
// leaseFirst checks the lease before the first attempt too; a state write does not: it is
// guarded by a test of the annotation's value (another driver's takeover makes it fail),
// so a renewal late on a loaded machine still renews, as before retries existed, while a
// failed one is not retried past the lapse.
func (d *Driver) retryUntil(ctx context.Context, deadline time.Time, what string, leaseFirst bool, fn func(ctx context.Context, retried bool) error) error {
	began := d.now()
	retries := 0
	first := true
	r := kube.Retry{
		Deadline: deadline,
		Now:      d.now,
		Check: func() error {
			check := leaseFirst || !first
			first = false
			if s := d.held.state(); check && s != nil && s.Holder == d.identity {
				return d.leaseOK()
			}
			return nil
		},
		OnRetry: func(err error, attempt int, sleep time.Duration) {
			retries = attempt
			d.retries.Add(1)
			if attempt == 1 {
				d.out.emit(Event{Kind: EventRetrying, What: what, Err: err, Deadline: deadline})
				return
			}
			d.out.emit(Event{Kind: EventRetryAttempt, What: what, Attempt: attempt, Err: err, Duration: sleep})
		},
	}
	err := r.Do(ctx, fn)
	if retries > 0 && err == nil {
		d.out.emit(Event{Kind: EventRecovered, What: what, Attempt: retries, Duration: d.now().Sub(began)})
	}
	return err
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// retryCounter counts the retries of transient failures of a run (Result.Retries).
type retryCounter = atomic.Int64

// loadLive reads the Deployment and its ReplicaSets through transient failures.
func (d *Driver) loadLive(ctx context.Context) (*cluster.State, error) {
	var st *cluster.State
	err := d.retry(ctx, "read "+d.ref(), func(ctx context.Context, _ bool) error {
		var err error
		st, err = cluster.LoadLive(ctx, d.client, d.opts.Namespace, d.opts.Name)
		return err
	})
	return st, err
}

// getDeployment reads the Deployment alone through transient failures.
func (d *Driver) getDeployment(ctx context.Context) (*appsv1.Deployment, error) {
	var dep *appsv1.Deployment
	err := d.retry(ctx, "get "+d.ref(), func(ctx context.Context, _ bool) error {
		var err error
		dep, err = d.client.AppsV1().Deployments(d.opts.Namespace).Get(ctx, d.opts.Name, metav1.GetOptions{})
		return err
	})
	return dep, err
}
