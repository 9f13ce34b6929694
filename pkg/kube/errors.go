package kube

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	utilnet "k8s.io/apimachinery/pkg/util/net"
)

// ErrGuard is matched (errors.Is) by the error of a write whose guard failed: a `test`
// operation of a JSON patch, or a resourceVersion precondition (409 Conflict), found the
// object changed since it was read. It means an edit by someone else, and that edit is never
// overwritten: nothing was written.
var ErrGuard = errors.New("the object changed since it was read")

// Class is the kind of failure of a write, as the callers and the retry policy tell them
// apart.
type Class string

// The classes of Classify, most specific first.
const (
	// ClassNone: no error.
	ClassNone Class = ""
	// ClassGuard: a guard failed (ErrGuard, or a JSON patch test that failed): the object
	// changed since it was read.
	ClassGuard Class = "guard"
	// ClassConflict: 409 Conflict, a resourceVersion precondition or an optimistic-lock
	// update that lost.
	ClassConflict Class = "conflict"
	// ClassNotFound: 404, the object (or its namespace) does not exist.
	ClassNotFound Class = "not found"
	// ClassForbidden: 403, RBAC or admission refused the write.
	ClassForbidden Class = "forbidden"
	// ClassTransient: the server or the network was briefly unable to answer (timeouts, 429,
	// 500, 503, connection reset or refused); the same request may succeed later.
	ClassTransient Class = "transient"
	// ClassOther: anything else (invalid objects, bad requests, ...); retrying will not help.
	ClassOther Class = "other"
)

// Classify returns err's Class. An error wrapping ErrGuard is ClassGuard even when it also
// wraps a Conflict.
func Classify(err error) Class {
	switch {
	case err == nil:
		return ClassNone
	case errors.Is(err, ErrGuard) || IsTestFailed(err):
		return ClassGuard
	case apierrors.IsConflict(err):
		return ClassConflict
	case apierrors.IsNotFound(err):
		return ClassNotFound
	case apierrors.IsForbidden(err):
		return ClassForbidden
	case IsTransient(err):
		return ClassTransient
	}
	return ClassOther
}

// IsTransient reports whether err is a failure the same request may not meet again: a
// server timeout (504 or a StatusReasonTimeout/ServerTimeout), 429 Too Many Requests (API
// Priority and Fairness, a watch cache still initializing), any 5xx (500 Internal Error,
// 503 Service Unavailable, ...), etcd's "request timed out" and "leader changed" passed on
// by the API server, or the network: a connection refused (the API server is down), reset
// or cut short, a network timeout, an attempt of Retry.Do that got no answer in its time
// (NoAnswerError). A context's end is never transient. An aggregate (the
// resource builder's visits, utilerrors.Aggregate) is transient when every error in it is.
//
// Mirrors the errors client-go's rest client retries (IsRetryableError and checkWait,
// k8s.io/client-go/rest/with_retry.go, v0.36.3) and those retry.OnError callers treat as
// retriable, with apierrors and utilnet.
func IsTransient(err error) bool {
	var na *NoAnswerError
	if errors.As(err, &na) {
		return true
	}
	if err == nil || IsContextError(err) {
		return false
	}
	var agg utilerrors.Aggregate
	if errors.As(err, &agg) {
		errs := utilerrors.Flatten(agg).Errors()
		for _, e := range errs {
			if !IsTransient(e) {
				return false
			}
		}
		return len(errs) > 0
	}
	var st apierrors.APIStatus
	if errors.As(err, &st) && st.Status().Code >= http.StatusInternalServerError {
		return true
	}
	return apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err) ||
		apierrors.IsTooManyRequests(err) || apierrors.IsInternalError(err) ||
		apierrors.IsServiceUnavailable(err) ||
		utilnet.IsConnectionReset(err) || utilnet.IsConnectionRefused(err) ||
		utilnet.IsProbableEOF(err) || utilnet.IsHTTP2ConnectionLost(err) ||
		utilnet.IsTimeout(err) || isEtcdTransient(err)
}

// isEtcdTransient matches etcd's transient errors as the API server passes them on
// (etcdserver/api/v3rpc/rpctypes: ErrTimeout, ErrLeaderChanged, ErrNoLeader).
func isEtcdTransient(err error) bool {
	msg := err.Error()
	for _, s := range []string{"etcdserver: request timed out", "etcdserver: leader changed", "etcdserver: no leader"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// IsTestFailed reports whether err is the API server's answer to a JSON patch that could not
// be applied, as when a `test` operation fails: 422 Invalid without field causes (a patch
// that applies but makes an invalid object names the fields).
func IsTestFailed(err error) bool {
	var st apierrors.APIStatus
	if !errors.As(err, &st) {
		return false
	}
	s := st.Status()
	return s.Code == http.StatusUnprocessableEntity && (s.Details == nil || len(s.Details.Causes) == 0)
}

// guardError wraps err, the failure of the write what, as ErrGuard when it is a failed
// guard (a failed test or a conflict): "WHAT: the object changed since it was read (ERR)".
// Other errors stay as they are, behind "WHAT: ".
func guardError(what string, err error) error {
	if IsTestFailed(err) || apierrors.IsConflict(err) {
		return fmt.Errorf("%s: %w (%v)", what, ErrGuard, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}
