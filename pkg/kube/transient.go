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

// AttemptTimeout bounds one attempt of Retry.Do when the Retry names no other
// (Retry.AttemptTimeout): a request the API server took and never answers ends then, counts
// as a transient failure (NoAnswerError) and is sent again. Half the API server's own
// --request-timeout (60 s), so a server that answers slowly still answers, while a request
// lost with a connection that stays open cannot hold its caller for ever (a safeguard: the
// drive that waited 6 minutes after an etcd restart was waiting for a pod, not a request).
var AttemptTimeout = 30 * time.Second

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
	// AttemptTimeout bounds each attempt: fn's context ends then (0: AttemptTimeout). It
	// is shortened to the time left before Deadline, but not below MinAttemptTimeout by that.
	AttemptTimeout time.Duration
}

// MinAttemptTimeout is the least time an attempt of Retry.Do is left when its deadline is
// near (an AttemptTimeout set below it is kept).
const MinAttemptTimeout = 2 * time.Second

// NoAnswerError is the failure of an attempt that got no answer within its time
// (Retry.AttemptTimeout): transient (IsTransient), never a context's end (IsContextError),
// although the attempt's own context ended.
type NoAnswerError struct {
	// After is the attempt's time.
	After time.Duration
	// Err is the attempt's error as the client returned it (a url.Error wrapping
	// context.DeadlineExceeded).
	Err error
}

func (e *NoAnswerError) Error() string {
	return fmt.Sprintf("no answer from the API server within %s", e.After)
}

// Read returns read's result under r's policy: a read changes nothing, so after a transient
// failure it is sent again whole. T is whatever the read returns (a State, a list). read
// gets the attempt's context (see Do) and must send its requests with it.
//
// Errors: those of Do (read's last error, "(gave up after N attempts in D)", ctx's cause).
func Read[T any](ctx context.Context, r Retry, read func(ctx context.Context) (T, error)) (T, error) {
	var out T
	err := r.Do(ctx, func(ctx context.Context, _ bool) error {
		var err error
		out, err = read(ctx)
		return err
	})
	if err != nil {
		var zero T
		return zero, err
	}
	return out, nil
}

// Do calls fn until it returns nil or an error that is not transient, ctx ends, Check
// fails, or the next attempt would start after the deadline. fn gets the attempt's context,
// ctx bounded by the attempt's time (Retry.AttemptTimeout), and must send its requests with
// it: an attempt that ends because that time ran out fails with a NoAnswerError, which is
// transient. fn's second argument says whether an earlier attempt failed transiently: that
// attempt may have reached the server (a write whose answer was lost when the connection
// dropped, or that got no answer in time), so a guarded write that now fails its guard must
// look whether the object shows its change (see Applied).
//
// Errors: fn's last error; after retries, "ERR (gave up after N attempts in D)", which
// still matches IsTransient and the API error (errors.Is/As); ctx's cause; Check's error.
//
// Mirrors retry.OnError (k8s.io/client-go/util/retry, v0.36.3) with a deadline instead of a
// step count, the server's Retry-After, a context, and a time for each attempt.
func (r Retry) Do(ctx context.Context, fn func(ctx context.Context, retried bool) error) error {
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
		err := r.attempt(ctx, deadline, now, func(actx context.Context) error { return fn(actx, attempt > 1) })
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

// attempt runs one attempt of Do under its time: r.AttemptTimeout (or AttemptTimeout),
// shortened to the time left before deadline but not below MinAttemptTimeout by it. An
// error of an attempt whose own time ran out (ctx still live) becomes a NoAnswerError.
func (r Retry) attempt(ctx context.Context, deadline time.Time, now func() time.Time, fn func(context.Context) error) error {
	limit := r.AttemptTimeout
	if limit <= 0 {
		limit = AttemptTimeout
	}
	limit = min(limit, max(deadline.Sub(now()), MinAttemptTimeout))
	actx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	err := fn(actx)
	if err != nil && ctx.Err() == nil && actx.Err() != nil && IsContextError(err) {
		return &NoAnswerError{After: limit, Err: err}
	}
	return err
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
// never transient, although a deadline is a net.Error with Timeout() true. A NoAnswerError
// (an attempt's own time, not its caller's context) is not one.
func IsContextError(err error) bool {
	var na *NoAnswerError
	if errors.As(err, &na) {
		return false
	}
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
