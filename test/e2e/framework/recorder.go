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
// committed them.
type Recorder struct {
	mu       sync.Mutex
	writes   []RSWrite
	events   []ScalingEvent
	lastAt   time.Time        // time of the last write recorded
	replicas map[string]int32 // ReplicaSet name -> last seen spec.replicas
	counts   map[string]int32 // Event name -> last seen count
	errs     []error
	changed  chan struct{} // closed and replaced on every record
	cancel   context.CancelFunc
	done     sync.WaitGroup
}

// RecordReplicaSets starts a Recorder on ns. ReplicaSets that exist at the start are its
// baseline (not writes). It stops when t ends; a watch error fails t then.
func (c *Cluster) RecordReplicaSets(t testing.TB, ns string) *Recorder {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := &Recorder{
		replicas: map[string]int32{},
		counts:   map[string]int32{},
		changed:  make(chan struct{}),
		cancel:   cancel,
		lastAt:   time.Now(),
	}
	rsList, err := c.Client.AppsV1().ReplicaSets(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		cancel()
		t.Fatalf("list replicasets in %s: %v", ns, err)
	}
	for _, rs := range rsList.Items {
		r.replicas[rs.Name] = ptr.Deref(rs.Spec.Replicas, 1)
	}
	evSelector := fields.OneTermEqualSelector("reason", "ScalingReplicaSet").String()
	evList, err := c.Client.CoreV1().Events(ns).List(t.Context(), metav1.ListOptions{FieldSelector: evSelector})
	if err != nil {
		cancel()
		t.Fatalf("list events in %s: %v", ns, err)
	}
	for _, ev := range evList.Items {
		r.counts[ev.Name] = ev.Count
	}

	listRS := func(ctx context.Context) ([]runtime.Object, string, error) {
		l, err := c.Client.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, "", err
		}
		objs := make([]runtime.Object, 0, len(l.Items))
		for i := range l.Items {
			objs = append(objs, &l.Items[i])
		}
		return objs, l.ResourceVersion, nil
	}
	err = WatchRelist(ctx, rsList.ResourceVersion, listRS, func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
		return c.Client.AppsV1().ReplicaSets(ns).Watch(ctx, o)
	}, &r.done, r.unlessError(r.recordReplicaSet))
	if err != nil {
		cancel()
		t.Fatalf("watch replicasets in %s: %v", ns, err)
	}
	listEvents := func(ctx context.Context) ([]runtime.Object, string, error) {
		l, err := c.Client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: evSelector})
		if err != nil {
			return nil, "", err
		}
		objs := make([]runtime.Object, 0, len(l.Items))
		for i := range l.Items {
			objs = append(objs, &l.Items[i])
		}
		return objs, l.ResourceVersion, nil
	}
	err = WatchRelist(ctx, evList.ResourceVersion, listEvents, func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
		o.FieldSelector = evSelector
		return c.Client.CoreV1().Events(ns).Watch(ctx, o)
	}, &r.done, r.unlessError(r.recordEvent))
	if err != nil {
		cancel()
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

// unlessError keeps a watch.Error event for the test's report and hands every other event
// to record.
func (r *Recorder) unlessError(record func(watch.Event)) func(watch.Event) {
	return func(ev watch.Event) {
		if ev.Type == watch.Error {
			r.mu.Lock()
			r.errs = append(r.errs, fmt.Errorf("watch error: %v", ev.Object))
			r.mu.Unlock()
			return
		}
		record(ev)
	}
}

func (r *Recorder) recordReplicaSet(ev watch.Event) {
	rs, ok := ev.Object.(*appsv1.ReplicaSet)
	if !ok {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	replicas := ptr.Deref(rs.Spec.Replicas, 1)
	w := RSWrite{Name: rs.Name, To: replicas, ResourceVersion: rs.ResourceVersion,
		Revision: rs.Annotations["deployment.kubernetes.io/revision"]}
	prev, known := r.replicas[rs.Name]
	switch ev.Type {
	case watch.Added:
		w.Op = OpCreate
	case watch.Modified:
		if known && prev == replicas {
			return
		}
		w.Op, w.From = OpScale, prev
	case watch.Deleted:
		w.Op = OpDelete
		delete(r.replicas, rs.Name)
		r.add(func() { r.writes = append(r.writes, w) })
		return
	default:
		return
	}
	r.replicas[rs.Name] = replicas
	r.add(func() { r.writes = append(r.writes, w) })
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

func (r *Recorder) recordEvent(ev watch.Event) {
	e, ok := ev.Object.(*corev1.Event)
	if !ok || (ev.Type != watch.Added && ev.Type != watch.Modified) {
		return
	}
	if e.Source.Component != "deployment-controller" && e.ReportingController != "deployment-controller" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	// The recorder may update an Event in place (count+1) instead of creating one: record
	// each increase of the count once.
	count := max(e.Count, 1)
	if prev, ok := r.counts[e.Name]; ok && count <= prev {
		return
	}
	r.counts[e.Name] = count
	se, err := ParseScalingMessage(e.Message)
	if err != nil {
		r.errs = append(r.errs, err)
		return
	}
	se.Deployment = e.InvolvedObject.Name
	r.add(func() { r.events = append(r.events, se) })
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
