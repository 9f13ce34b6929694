package framework

import (
	"context"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
