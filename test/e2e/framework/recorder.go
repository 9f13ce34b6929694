package framework

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"
)

// Kinds of ReplicaSet writes a Recorder sees.
const (
	OpCreate = "create"
	OpScale  = "scale"
	OpDelete = "delete"
)

// RSWrite is one write to a ReplicaSet as the watch saw it: a creation, a change of
// spec.replicas, or a deletion. Writes that change neither (status, annotations alone) are
// not recorded.
type RSWrite struct {
	Op   string // OpCreate, OpScale or OpDelete
	Name string // ReplicaSet name
	// From and To are spec.replicas before and after (From is 0 for a create; To is the
	// last known spec.replicas for a delete).
	From, To int32
	// ResourceVersion of the ReplicaSet after the write.
	ResourceVersion string
	// Revision is the deployment.kubernetes.io/revision annotation after the write.
	Revision string
}

// String gives "create web-6d4f 0->3", "scale web-5c9b 10->8" or "delete web-5c9b 0".
func (w RSWrite) String() string {
	return w.Describe(nil)
}

// Describe is String with ReplicaSet names replaced by aliases (for example
// {"web-5c9b": "old", "web-6d4f": "new"}); a name without an alias stays.
func (w RSWrite) Describe(alias map[string]string) string {
	name := w.Name
	if a, ok := alias[name]; ok {
		name = a
	}
	if w.Op == OpDelete {
		return fmt.Sprintf("%s %s %d", w.Op, name, w.To)
	}
	return fmt.Sprintf("%s %s %d->%d", w.Op, name, w.From, w.To)
}

// ScalingEvent is one ScalingReplicaSet event of the deployment-controller, which names the
// controller's own writes in order ("Scaled up replica set web-6d4f from 0 to 3"; see
// sync.go of pkg/controller/deployment, v1.36.3).
type ScalingEvent struct {
	Deployment string // involved object
	Direction  string // "up" or "down"
	ReplicaSet string
	From, To   int32
	Message    string // as the event carries it
}

// String gives "up web-6d4f 0->3".
func (e ScalingEvent) String() string { return e.Describe(nil) }

// Describe is String with ReplicaSet names replaced by aliases.
func (e ScalingEvent) Describe(alias map[string]string) string {
	name := e.ReplicaSet
	if a, ok := alias[name]; ok {
		name = a
	}
	return fmt.Sprintf("%s %s %d->%d", e.Direction, name, e.From, e.To)
}

// Recorder watches the ReplicaSets and the deployment-controller's ScalingReplicaSet events
// of one namespace from the moment it starts, and keeps them in the order the API server
// committed them. It follows them through API server restarts (Follow): a ReplicaSet that a
// list after a restart shows changed is a write from its last seen state.
type Recorder struct {
	mu      sync.Mutex
	writes  []RSWrite
	events  []ScalingEvent
	lastAt  time.Time // time of the last write recorded
	errs    []error
	changed chan struct{} // closed and replaced on every record
	cancel  context.CancelFunc
	done    sync.WaitGroup
}

// RecordReplicaSets starts a Recorder on ns. ReplicaSets and events that exist at the start
// are its baseline (not writes). It stops when t ends; an event it cannot parse fails t then.
func (c *Cluster) RecordReplicaSets(t testing.TB, ns string) *Recorder {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := &Recorder{changed: make(chan struct{}), cancel: cancel, lastAt: time.Now()}
	rs := c.Client.AppsV1().ReplicaSets(ns)
	lw := ListWatch(c.Client, func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
		return rs.List(ctx, o)
	}, rs.Watch)
	if err := Follow(ctx, time.Minute, lw, &appsv1.ReplicaSet{}, &r.done, r.recordReplicaSets); err != nil {
		r.Stop()
		t.Fatalf("watch replicasets in %s: %v", ns, err)
	}
	evSelector := fields.OneTermEqualSelector("reason", "ScalingReplicaSet").String()
	events := c.Client.CoreV1().Events(ns)
	lw = ListWatch(c.Client, func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
		o.FieldSelector = evSelector
		return events.List(ctx, o)
	}, func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
		o.FieldSelector = evSelector
		return events.Watch(ctx, o)
	})
	if err := Follow(ctx, time.Minute, lw, &corev1.Event{}, &r.done, r.recordEvents); err != nil {
		r.Stop()
		t.Fatalf("watch events in %s: %v", ns, err)
	}
	t.Cleanup(func() {
		r.Stop()
		for _, err := range r.errs {
			t.Errorf("replicaset recorder in %s: %v", ns, err)
		}
	})
	return r
}

// recordReplicaSets records the changes of spec.replicas, creations and deletions.
func (r *Recorder) recordReplicaSets(changes []Change) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range changes {
		if w, ok := rsWrite(c); ok && !c.Initial {
			r.add(func() { r.writes = append(r.writes, w) })
		}
	}
}

// rsWrite is the write a change of a ReplicaSet shows, if any: Added is a create, Deleted a
// delete (To: the last spec.replicas seen), Modified a scale from the last seen
// spec.replicas when it changed.
func rsWrite(c Change) (RSWrite, bool) {
	rs, ok := c.New.(*appsv1.ReplicaSet)
	if !ok {
		return RSWrite{}, false
	}
	w := RSWrite{Name: rs.Name, To: ptr.Deref(rs.Spec.Replicas, 1), ResourceVersion: rs.ResourceVersion,
		Revision: rs.Annotations["deployment.kubernetes.io/revision"]}
	switch c.Type {
	case watch.Added:
		w.Op = OpCreate
	case watch.Deleted:
		w.Op = OpDelete
	case watch.Modified:
		old, ok := c.Old.(*appsv1.ReplicaSet)
		if !ok {
			return RSWrite{}, false
		}
		w.Op, w.From = OpScale, ptr.Deref(old.Spec.Replicas, 1)
		if w.From == w.To {
			return RSWrite{}, false
		}
	default:
		return RSWrite{}, false
	}
	return w, true
}

// scalingMessage matches the deployment-controller's messages, also when the event
// aggregator prefixed them after ten similar events.
var scalingMessage = regexp.MustCompile(`Scaled (up|down) replica set (\S+) from (\d+) to (\d+)$`)

// ParseScalingMessage parses a ScalingReplicaSet message ("Scaled up replica set web-6d4f
// from 0 to 3", possibly with the aggregator's "(combined from similar events): " prefix).
func ParseScalingMessage(msg string) (ScalingEvent, error) {
	m := scalingMessage.FindStringSubmatch(strings.TrimSpace(msg))
	if m == nil {
		return ScalingEvent{}, fmt.Errorf("parse ScalingReplicaSet message %q: want \"Scaled up|down replica set NAME from N to M\"", msg)
	}
	from, _ := strconv.ParseInt(m[3], 10, 32)
	to, _ := strconv.ParseInt(m[4], 10, 32)
	return ScalingEvent{Direction: m[1], ReplicaSet: m[2], From: int32(from), To: int32(to), Message: msg}, nil
}

// recordEvents records the deployment-controller's ScalingReplicaSet events: each new event,
// and each increase of an event's count (the recorder may update an Event in place, count+1,
// instead of creating one).
func (r *Recorder) recordEvents(changes []Change) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range changes {
		e, ok := c.New.(*corev1.Event)
		if !ok || c.Type == watch.Deleted || c.Initial {
			continue
		}
		if e.Source.Component != "deployment-controller" && e.ReportingController != "deployment-controller" {
			continue
		}
		if old, ok := c.Old.(*corev1.Event); ok && max(e.Count, 1) <= max(old.Count, 1) {
			continue
		}
		se, err := ParseScalingMessage(e.Message)
		if err != nil {
			r.errs = append(r.errs, err)
			continue
		}
		se.Deployment = e.InvolvedObject.Name
		r.add(func() { r.events = append(r.events, se) })
	}
}

// add runs f under r.mu (held by the caller) and wakes waiters.
func (r *Recorder) add(f func()) {
	f()
	r.lastAt = time.Now()
	close(r.changed)
	r.changed = make(chan struct{})
}

// Stop ends the watches; Writes and Events keep what was recorded.
func (r *Recorder) Stop() {
	r.cancel()
	r.done.Wait()
}

// Writes returns the ReplicaSet writes recorded so far, in order.
func (r *Recorder) Writes() []RSWrite {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.writes)
}

// Events returns the deployment-controller's ScalingReplicaSet events so far, in order.
func (r *Recorder) Events() []ScalingEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

// WaitFor waits until cond holds on the writes and events recorded so far, or fails t after
// timeout with what was recorded.
func (r *Recorder) WaitFor(t testing.TB, timeout time.Duration, cond func(writes []RSWrite, events []ScalingEvent) bool) {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		r.mu.Lock()
		ok := cond(r.writes, r.events)
		changed := r.changed
		r.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("replicaset recorder: condition not met after %s; writes %v, events %v", timeout, r.Writes(), r.Events())
		case <-t.Context().Done():
			t.Fatalf("replicaset recorder: test ended while waiting; writes %v, events %v", r.Writes(), r.Events())
		}
	}
}

// WaitQuiet waits until nothing has been recorded for quiet (writes or events), or fails t
// after timeout. It returns the writes recorded by then.
func (r *Recorder) WaitQuiet(t testing.TB, quiet, timeout time.Duration) []RSWrite {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		r.mu.Lock()
		since := time.Since(r.lastAt)
		r.mu.Unlock()
		if since >= quiet {
			return r.Writes()
		}
		if time.Now().Add(quiet - since).After(deadline) {
			t.Fatalf("replicaset recorder: still busy after %s; writes %v", timeout, r.Writes())
		}
		select {
		case <-time.After(quiet - since):
		case <-t.Context().Done():
			t.Fatalf("replicaset recorder: test ended while waiting for quiet")
		}
	}
}

func sortReplicaSets(rss []appsv1.ReplicaSet) {
	slices.SortStableFunc(rss, func(a, b appsv1.ReplicaSet) int {
		if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
}
