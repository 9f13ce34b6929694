package kube

import (
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"
)

// Backoff is the one retry policy of rollplan's writes (OnError, RetryOnConflict): at most
// Steps = 5 attempts, sleeping 10ms, 20ms, 40ms and 80ms between them (Duration 10ms,
// Factor 2, each sleep up to Jitter 10% longer; Cap 1s is never reached with 5 steps), so
// a write that keeps failing is given up after about 150ms of sleep plus its 5 round trips.
//
// The writes that retry are the ones a concurrent writer can refuse without meaning
// anything: the deployment controller updates a Deployment's status (and resourceVersion)
// at any moment of a rollout, so a guard or a resourceVersion precondition fails although
// nothing the user previewed changed. Each caller re-reads and decides whether the retry
// still holds (see PatchDeploymentGuarded); a real edit by someone else ends the retries
// (Stop). Before this policy the three loops made 4 or 5 attempts without sleeping.
//
// It is retry.DefaultRetry's shape (k8s.io/client-go/util/retry, v0.36.3) with an
// exponential factor. The faults issue widens it (transient errors, longer caps) here, once.
var Backoff = wait.Backoff{
	Steps:    5,
	Duration: 10 * time.Millisecond,
	Factor:   2,
	Jitter:   0.1,
	Cap:      time.Second,
}

// stopError ends OnError's retries with err, whatever retriable says of it.
type stopError struct{ err error }

func (s *stopError) Error() string { return s.err.Error() }
func (s *stopError) Unwrap() error { return s.err }

// Stop wraps err so that OnError returns it at once, unwrapped: for a caller that found, on
// re-reading, that a retry would overwrite someone else's edit. Stop(nil) is nil.
func Stop(err error) error {
	if err == nil {
		return nil
	}
	return &stopError{err: err}
}

// OnError runs fn until it returns nil, an error retriable rejects, an error wrapped by
// Stop, or Backoff.Steps attempts have failed; it sleeps as Backoff says between attempts.
// It returns fn's last error (a Stop error unwrapped), or nil.
//
// Mirrors retry.OnError (k8s.io/client-go/util/retry, v0.36.3), with Backoff and Stop.
func OnError(retriable func(error) bool, fn func() error) error {
	err := retry.OnError(Backoff, func(err error) bool {
		if _, stop := err.(*stopError); stop {
			return false
		}
		return retriable(err)
	}, fn)
	if s, ok := err.(*stopError); ok {
		return s.err
	}
	return err
}

// RetryOnConflict is OnError retrying 409 Conflicts (apierrors.IsConflict) alone.
//
// Mirrors retry.RetryOnConflict (k8s.io/client-go/util/retry, v0.36.3), with Backoff.
func RetryOnConflict(fn func() error) error {
	return OnError(apierrors.IsConflict, fn)
}
