// Package objlease is a kind-neutral drive lease: a JSON annotation on any object's
// metadata naming the driver that holds it and when that hold expires. It is pure: each
// function takes the object's metadata (metav1.Object) and returns the JSON patch
// operations to send (a test of the value last seen, then the write), so two drivers that
// race cannot both win: the loser's test fails (HTTP 422) and it writes nothing.
//
// StatefulSet drive (pkg/drive/stsdrive) uses it. Deployment drive keeps its own lease in
// its State annotation (pkg/drive/lease.go); the semantics mirror it: valid until
// Expires, renewed by the holder, taken by another driver only with --force.
package objlease

import (
	"encoding/json"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/jsonpatch"
)

// Annotation holds a Lease as JSON.
const Annotation = "rollplan.dev/drive-lease"

// Lease is the annotation's value.
type Lease struct {
	// Holder is the driver's identity ("user@host pid N/xxxx", drive.DefaultIdentity).
	Holder string `json:"holder"`
	// Expires is when the hold lapses unless renewed (UTC, RFC 3339).
	Expires time.Time `json:"expires"`
}

// Valid reports whether the lease still holds at now.
func (l *Lease) Valid(now time.Time) bool { return l != nil && now.Before(l.Expires) }

// Read returns obj's lease, nil when it has none. Errors: the annotation is not a Lease.
func Read(obj metav1.Object) (*Lease, error) {
	v, ok := obj.GetAnnotations()[Annotation]
	if !ok {
		return nil, nil
	}
	var l Lease
	if err := json.Unmarshal([]byte(v), &l); err != nil {
		return nil, fmt.Errorf("annotation %s is not a drive lease (%v): remove it with kubectl annotate %s-", Annotation, err, Annotation)
	}
	return &l, nil
}

// HeldError refuses a lease held by another driver (without force).
type HeldError struct {
	What  string // "statefulset ns/name"
	Lease Lease
}

func (e *HeldError) Error() string {
	return fmt.Sprintf("%s is being driven by %s (lease valid until %s): wait, or pass --force if that driver is gone",
		e.What, e.Lease.Holder, e.Lease.Expires.UTC().Format(time.RFC3339))
}

// Acquire decides whether identity may take obj's lease at now for d, and returns the
// patch that takes it (guarded by obj's resourceVersion, so a driver that took it in
// between makes the patch fail) and the value written. taken names the previous valid
// holder when force took it from them ("" otherwise). Errors: *HeldError when another
// driver's lease is valid and force is false; Read's error.
func Acquire(obj metav1.Object, what, identity string, now time.Time, d time.Duration, force bool) (ops []jsonpatch.Op, value, taken string, err error) {
	cur, err := Read(obj)
	if err != nil {
		return nil, "", "", err
	}
	if cur.Valid(now) && cur.Holder != identity {
		if !force {
			return nil, "", "", &HeldError{What: what, Lease: *cur}
		}
		taken = cur.Holder
	}
	value = encode(identity, now, d)
	if rv := obj.GetResourceVersion(); rv != "" { // an API server always sets it
		ops = append(ops, jsonpatch.Test("/metadata/resourceVersion", rv))
	}
	if obj.GetAnnotations() == nil {
		ops = append(ops, jsonpatch.Add("/metadata/annotations", map[string]string{Annotation: value}))
	} else {
		ops = append(ops, jsonpatch.Add(jsonpatch.AnnotationPath(Annotation), value))
	}
	return ops, value, taken, nil
}

// Renew returns the patch that extends the lease whose annotation value is last (the one
// this driver wrote) to now+d, and the new value: it fails its test when another driver
// took the lease.
func Renew(last, identity string, now time.Time, d time.Duration) (ops []jsonpatch.Op, value string) {
	value = encode(identity, now, d)
	path := jsonpatch.AnnotationPath(Annotation)
	return []jsonpatch.Op{jsonpatch.Test(path, last), jsonpatch.Replace(path, value)}, value
}

// Release returns the patch that removes the lease whose value is last.
func Release(last string) []jsonpatch.Op {
	path := jsonpatch.AnnotationPath(Annotation)
	return []jsonpatch.Op{jsonpatch.Test(path, last), jsonpatch.Remove(path)}
}

// Due reports whether a lease written at value should be renewed at now: a third of d or
// less is left (as Deployment drive renews every third of the lease).
func Due(value string, now time.Time, d time.Duration) bool {
	var l Lease
	if json.Unmarshal([]byte(value), &l) != nil {
		return true
	}
	return !now.Before(l.Expires.Add(-d / 3))
}

func encode(identity string, now time.Time, d time.Duration) string {
	b, _ := json.Marshal(Lease{Holder: identity, Expires: now.Add(d).UTC().Truncate(time.Millisecond)})
	return string(b)
}
