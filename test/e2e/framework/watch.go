package framework

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

// Change is one change of an object that Follow saw: a watch event, or a difference between
// a fresh list and what was seen before.
type Change struct {
	// Type is watch.Added, watch.Modified or watch.Deleted.
	Type watch.EventType
	// Old is the object's last state seen before the change (nil for Added). New is its
	// state after the change; for Deleted, its last state (the watch's final object, or Old
	// when a list no longer had it).
	Old, New runtime.Object
	// Initial: the object was in the first list, the state before anything was followed.
	Initial bool
}

// ListWatch is the cache.ListerWatcher of a typed client's List and Watch, for example
// ListWatch(client, func(ctx, o) { return client.CoreV1().Pods(ns).List(ctx, o) }, ...).
// client is the clientset: a fake one tells the Reflector that it cannot stream lists
// (cache.ToListWatcherWithWatchListSemantics).
func ListWatch(client any, list cache.ListWithContextFunc, watchFn cache.WatchFuncWithContext) cache.ListerWatcher {
	return cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{ListWithContextFunc: list, WatchFuncWithContext: watchFn}, client)
}

// followBackoff is how soon Follow lists or watches again after a failure: from 100 ms,
// doubling, at most 1 s apart (client-go's default grows to 30 s: a recorder would then lag
// behind an API server that is back).
var followBackoff = wait.Backoff{Duration: 100 * time.Millisecond, Factor: 2, Jitter: 0.5, Steps: 1 << 30, Cap: time.Second}

// Follow keeps up with the objects lw lists and watches (of type expectedType, for example
// &corev1.Pod{}) with client-go's Reflector: it lists, watches from the list's
// resourceVersion, re-opens a watch the server closes, and lists again after 410 Gone or a
// failed watch (an API server that restarted), retrying with backoff (followBackoff) while
// the API server is away.
//
// It hands handle, on one goroutine that wg counts and that ends with ctx, first the first
// list (every object Added, Initial), then every watch event as one Change and every later
// list as its differences from what was seen (Relist): the changes of one list come in one
// call, so a check made after each call never sees a state half old, half new. Follow returns
// once handle has had the first list, or an error when there was none within timeout (the
// reflector then keeps trying until ctx ends).
func Follow(ctx context.Context, timeout time.Duration, lw cache.ListerWatcher, expectedType runtime.Object, wg *sync.WaitGroup, handle func([]Change)) error {
	s := &followStore{known: map[string]runtime.Object{}, synced: make(chan struct{}), handle: handle}
	r := cache.NewReflectorWithOptions(lw, expectedType, s, cache.ReflectorOptions{Name: fmt.Sprintf("framework.Follow %T", expectedType), Backoff: &followBackoff})
	wg.Go(func() { r.RunWithContext(ctx) })
	select {
	case <-s.synced:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(timeout):
		return fmt.Errorf("no list of %T within %s", expectedType, timeout)
	}
}

// Relist returns the changes that a fresh list makes to known (key -> last state seen, keys
// as objectKey gives them), and updates known: an object listed and not known is Added; a
// known one listed with another resourceVersion is Modified from its known state (not
// created again, even if the watch never showed it); a known one not listed is Deleted (its
// known state). Listed objects come in list order, then the deleted ones by key. Objects
// without metadata are ignored.
func Relist(known map[string]runtime.Object, listed []runtime.Object) []Change {
	var changes []Change
	seen := make(map[string]bool, len(listed))
	for _, o := range listed {
		key, ok := objectKey(o)
		if !ok {
			continue
		}
		seen[key] = true
		old, wasKnown := known[key]
		known[key] = o
		switch {
		case !wasKnown:
			changes = append(changes, Change{Type: watch.Added, New: o})
		case resourceVersion(old) != resourceVersion(o):
			changes = append(changes, Change{Type: watch.Modified, Old: old, New: o})
		}
	}
	var gone []string
	for key := range known {
		if !seen[key] {
			gone = append(gone, key)
		}
	}
	slices.Sort(gone)
	for _, key := range gone {
		changes = append(changes, Change{Type: watch.Deleted, Old: known[key], New: known[key]})
		delete(known, key)
	}
	return changes
}

// observe returns the change a watch event of type typ with object o makes to known, and
// updates known. The event's type gives way to what was seen: an Added of a known object is
// Modified from it, a Modified of an unknown one is Added. ok is false for an object without
// metadata.
func observe(known map[string]runtime.Object, typ watch.EventType, o runtime.Object) (c Change, ok bool) {
	key, ok := objectKey(o)
	if !ok {
		return Change{}, false
	}
	old, wasKnown := known[key]
	c = Change{Type: typ, Old: old, New: o}
	switch {
	case typ == watch.Deleted:
		delete(known, key)
		return c, true
	case wasKnown:
		c.Type = watch.Modified
	default:
		c.Type = watch.Added
	}
	known[key] = o
	return c, true
}

// followStore is the cache.ReflectorStore of Follow: it keeps the last state of every
// object and turns the reflector's calls into Changes. The reflector calls it from one
// goroutine.
type followStore struct {
	known  map[string]runtime.Object
	synced chan struct{} // closed after the first list
	handle func([]Change)
}

func (s *followStore) Add(obj any) error    { return s.event(watch.Added, obj) }
func (s *followStore) Update(obj any) error { return s.event(watch.Modified, obj) }
func (s *followStore) Delete(obj any) error { return s.event(watch.Deleted, obj) }
func (s *followStore) Resync() error        { return nil }

func (s *followStore) event(typ watch.EventType, obj any) error {
	o, ok := obj.(runtime.Object)
	if !ok {
		return fmt.Errorf("follow: %T is not a runtime.Object", obj)
	}
	if c, ok := observe(s.known, typ, o); ok {
		s.handle([]Change{c})
	}
	return nil
}

// Replace is a (re)list: its differences from what was seen (Relist), marked Initial the
// first time.
func (s *followStore) Replace(list []any, _ string) error {
	objs := make([]runtime.Object, 0, len(list))
	for _, obj := range list {
		if o, ok := obj.(runtime.Object); ok {
			objs = append(objs, o)
		}
	}
	changes := Relist(s.known, objs)
	select {
	case <-s.synced:
		if len(changes) > 0 {
			s.handle(changes)
		}
	default:
		for i := range changes {
			changes[i].Initial = true
		}
		s.handle(changes)
		close(s.synced)
	}
	return nil
}

func objectKey(o runtime.Object) (string, bool) {
	m, err := meta.Accessor(o)
	if err != nil {
		return "", false
	}
	return m.GetNamespace() + "/" + m.GetName(), true
}

func resourceVersion(o runtime.Object) string {
	m, err := meta.Accessor(o)
	if err != nil {
		return ""
	}
	return m.GetResourceVersion()
}
