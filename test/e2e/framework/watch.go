package framework

import (
	"context"
	"net/http"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
)

// WatchFunc opens a watch with a typed client, for example
// `func(ctx, o) { return client.CoreV1().Pods(ns).Watch(ctx, o) }`.
type WatchFunc func(context.Context, metav1.ListOptions) (watch.Interface, error)

// WatchWithContext makes WatchFunc a cache.WatcherWithContext.
func (f WatchFunc) WatchWithContext(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
	return f(ctx, o)
}

var _ cache.WatcherWithContext = WatchFunc(nil)

// Watch follows open from resourceVersion (usually a List's) with client-go's RetryWatcher,
// which re-opens a watch the server closes, and hands every event, watch.Error included, to
// handle, in order, on one goroutine, until ctx ends. wg counts that goroutine. It returns
// the error of creating the watcher.
func Watch(ctx context.Context, resourceVersion string, open WatchFunc, wg *sync.WaitGroup, handle func(watch.Event)) error {
	w, err := watchtools.NewRetryWatcherWithContext(ctx, resourceVersion, open)
	if err != nil {
		return err
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer w.Stop()
		for {
			select {
			case <-w.Done():
				return
			case ev, ok := <-w.ResultChan():
				if !ok {
					return
				}
				handle(ev)
			}
		}
	}()
	return nil
}

// ListFunc lists the objects a watch follows, with the list's resourceVersion (for example
// the items of client.CoreV1().Pods(ns).List as pointers).
type ListFunc func(context.Context) ([]runtime.Object, string, error)

// WatchRelist is Watch that survives an expired resourceVersion: when the watch ends with
// 410 Gone (an API server that restarted has a fresh watch cache), it lists again (list,
// retried every 500 ms until it answers) and hands handle, for every object listed, a
// Modified event, and for every object seen before but not listed, a Deleted event (its
// last known state; an object never seen before gets Added), then watches on from the list's resourceVersion: as client-go's
// reflector does for informers. The 410 itself is not handed on; other watch.Error events
// are.
func WatchRelist(ctx context.Context, resourceVersion string, list ListFunc, open WatchFunc, wg *sync.WaitGroup, handle func(watch.Event)) error {
	w, err := watchtools.NewRetryWatcherWithContext(ctx, resourceVersion, open)
	if err != nil {
		return err
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		known := map[string]runtime.Object{}
		for {
			gone := follow(w, known, handle)
			w.Stop()
			if !gone || ctx.Err() != nil {
				return
			}
			rv, ok := relist(ctx, list, known, handle)
			if !ok {
				return
			}
			if w, err = watchtools.NewRetryWatcherWithContext(ctx, rv, open); err != nil {
				handle(watch.Event{Type: watch.Error, Object: &metav1.Status{Message: err.Error()}})
				return
			}
		}
	}()
	return nil
}

// follow hands w's events to handle, keeping the last state of every object in known, until
// w ends; it reports whether it ended with 410 Gone.
func follow(w *watchtools.RetryWatcher, known map[string]runtime.Object, handle func(watch.Event)) bool {
	for {
		select {
		case <-w.Done():
			return false
		case ev, ok := <-w.ResultChan():
			if !ok {
				return false
			}
			if ev.Type == watch.Error {
				if st, isStatus := ev.Object.(*metav1.Status); isStatus && st.Code == http.StatusGone {
					return true
				}
			}
			if key, ok := objectKey(ev.Object); ok && ev.Type != watch.Error {
				if ev.Type == watch.Deleted {
					delete(known, key)
				} else {
					known[key] = ev.Object
				}
			}
			handle(ev)
		}
	}
}

// relist lists until it succeeds (or ctx ends: false), hands on the differences with known
// as events, and returns the list's resourceVersion.
func relist(ctx context.Context, list ListFunc, known map[string]runtime.Object, handle func(watch.Event)) (string, bool) {
	for {
		objs, rv, err := list(ctx)
		if err == nil {
			listed := map[string]bool{}
			for _, o := range objs {
				if key, ok := objectKey(o); ok {
					typ := watch.Modified
					if _, seen := known[key]; !seen {
						typ = watch.Added
					}
					listed[key] = true
					known[key] = o
					handle(watch.Event{Type: typ, Object: o})
				}
			}
			for key, o := range known {
				if !listed[key] {
					delete(known, key)
					handle(watch.Event{Type: watch.Deleted, Object: o})
				}
			}
			return rv, true
		}
		select {
		case <-ctx.Done():
			return "", false
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func objectKey(o runtime.Object) (string, bool) {
	m, err := meta.Accessor(o)
	if err != nil {
		return "", false
	}
	return m.GetNamespace() + "/" + m.GetName(), true
}
