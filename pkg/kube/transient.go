package kube

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"
)

// TransientBackoff is the one policy for transient failures (IsTransient): the API server
// restarting, etcd electing a leader, API Priority and Fairness answering 429. The first
// retry comes after 200ms, each sleep doubles up to Cap 5s and is up to Jitter 50% longer
// (so 200-300ms, 400-600ms, 0.8-1.2s, 1.6-2.4s, 3.2-4.8s, then 5-7.5s each), and a server's
// Retry-After (apierrors.SuggestsClientDelay) is waited when it is longer. Steps has no
// practical limit: the caller's deadline (Retry.Deadline) ends the retries.
//
// Backoff (a few fast attempts) stays the policy of guard refusals caused by concurrent
// status writes; this one is for an API server that does not answer.
var TransientBackoff = wait.Backoff{
	Steps:    math.MaxInt32,
	Duration: 200 * time.Millisecond,
	Factor:   2,
	Jitter:   0.5,
	Cap:      5 * time.Second,
}

// TransientTimeout is how long a one-shot write (undo, pause, resume, restart, guard) keeps
// retrying transient failures when its caller gives no deadline.
var TransientTimeout = 30 * time.Second

// Retry retries an API call through transient failures with TransientBackoff.
type Retry struct {
	// Deadline: no attempt starts after it (zero: TransientTimeout after the first call).
	Deadline time.Time
	// Check is called before every attempt; its error ends the retries and is returned as
	// it is (nothing more is sent). Drive checks here that its lease has not lapsed.
	Check func() error
	// OnRetry is told each transient failure, the attempt it ended (1 for the first) and
	// the sleep before the next one (nil: nothing is told).
	OnRetry func(err error, attempt int, sleep time.Duration)
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// Read returns read's result under r's policy: a read changes nothing, so after a transient
// failure it is sent again whole. T is whatever the read returns (a State, a list).
//
// Errors: those of Do (read's last error, "(gave up after N attempts in D)", ctx's cause).
func Read[T any](ctx context.Context, r Retry, read func() (T, error)) (T, error) {
	var out T
	err := r.Do(ctx, func(bool) error {
		var err error
		out, err = read()
		return err
	})
	if err != nil {
		var zero T
		return zero, err
	}
	return out, nil
}

// Do calls fn until it returns nil or an error that is not transient, ctx ends, Check
// fails, or the next attempt would start after the deadline. fn's argument says whether an
// earlier attempt failed transiently: that attempt may have reached the server (a write
// whose answer was lost when the connection dropped), so a guarded write that now fails its
// guard must look whether the object shows its change (see Applied).
//
// Errors: fn's last error; after retries, "ERR (gave up after N attempts in D)", which
// still matches IsTransient and the API error (errors.Is/As); ctx's cause; Check's error.
//
// Mirrors retry.OnError (k8s.io/client-go/util/retry, v0.36.3) with a deadline instead of a
// step count, the server's Retry-After, and a context.
func (r Retry) Do(ctx context.Context, fn func(retried bool) error) error {
	now := r.Now
	if now == nil {
		now = time.Now
	}
	began := now()
	deadline := r.Deadline
	if deadline.IsZero() {
		deadline = began.Add(TransientTimeout)
	}
	b := TransientBackoff
	for attempt := 1; ; attempt++ {
		if r.Check != nil {
			if cerr := r.Check(); cerr != nil {
				return cerr
			}
		}
		err := fn(attempt > 1)
		if err == nil || !IsTransient(err) {
			return err
		}
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		sleep := b.Step()
		if s, ok := apierrors.SuggestsClientDelay(err); ok && time.Duration(s)*time.Second > sleep {
			sleep = time.Duration(s) * time.Second
		}
		if now().Add(sleep).After(deadline) {
			if attempt == 1 {
				return err
			}
			return &gaveUp{err: err, attempts: attempt, took: now().Sub(began)}
		}
		if r.OnRetry != nil {
			r.OnRetry(err, attempt, sleep)
		}
		t := time.NewTimer(sleep)
		select {
		case <-ctx.Done():
			t.Stop()
			return context.Cause(ctx)
		case <-t.C:
		}
	}
}

// gaveUp is a transient error that was retried until the deadline.
type gaveUp struct {
	err      error
	attempts int
	took     time.Duration
}

func (g *gaveUp) Error() string {
	return fmt.Sprintf("%v (gave up after %d attempts in %s)", g.err, g.attempts, g.took.Round(100*time.Millisecond))
}
func (g *gaveUp) Unwrap() error { return g.err }

// Applied resolves a guard failure of a write that was retried after a transient failure:
// the earlier attempt may have been applied before its answer was lost, and then the guard
// (a `test` of the value it replaced, a resourceVersion) refuses the second application.
// When retried is true and err is a guard failure (ClassGuard or ClassConflict, or the bare
// 422 of a failed test), Applied reads the object with get and returns it with a nil error
// if shows(object) says it carries the write's change: the write took effect once, and is
// not applied twice. A read failing transiently returns that failure (for Retry to try
// again). Otherwise it returns err unchanged (nil object).
func Applied[T any](ctx context.Context, retried bool, err error, get func(context.Context) (T, error), shows func(T) bool) (T, error) {
	var zero T
	if !retried || err == nil {
		return zero, err
	}
	if c := Classify(err); c != ClassGuard && c != ClassConflict && !apierrors.IsInvalid(err) {
		return zero, err
	}
	obj, gerr := get(ctx)
	switch {
	case IsTransient(gerr):
		return zero, gerr // the read failed in turn: Retry sends the write again, then reads
	case gerr != nil || !shows(obj):
		return zero, err
	}
	return obj, nil
}

// IsContextError reports whether err is a context's end (canceled or deadline exceeded):
// never transient, although a deadline is a net.Error with Timeout() true.
func IsContextError(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
