package watch

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/workqueue"
)

// fastLimiter retries after 1ms, 2ms, 4ms ... (at most 10ms).
func fastLimiter() workqueue.TypedRateLimiter[string] {
	return workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, 10*time.Millisecond)
}

func TestQueueRequeuesThenDrops(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var mu sync.Mutex
	var dropped []string
	q := NewQueue("test", fastLimiter(), 3, func(key string, err error) {
		mu.Lock()
		defer mu.Unlock()
		dropped = append(dropped, key+": "+err.Error())
	})
	defer q.ShutDown()
	calls := 0
	failing := func(context.Context, string) error { calls++; return errors.New("conflict") }
	q.Add("default/web")
	for i := 0; i < 4; i++ {
		if !q.ProcessNext(ctx, failing) {
			t.Fatal("queue shut down")
		}
	}
	// 1 try + 3 retries, then dropped and forgotten.
	mu.Lock()
	got := append([]string(nil), dropped...)
	mu.Unlock()
	if calls != 4 || len(got) != 1 || got[0] != "default/web: conflict" || q.NumRequeues("default/web") != 0 {
		t.Errorf("%d syncs, dropped %q, %d requeues left; want 4 syncs, one drop, 0", calls, got, q.NumRequeues("default/web"))
	}
	time.Sleep(30 * time.Millisecond)
	if q.Len() != 0 {
		t.Errorf("%d keys queued after the drop, want 0", q.Len())
	}
}

func TestQueueForgetsOnSuccessAndTerminatingNamespace(t *testing.T) {
	ctx := context.Background()
	q := NewQueue("test", fastLimiter(), 0, func(key string, err error) { t.Errorf("dropped %s: %v", key, err) })
	defer q.ShutDown()
	q.HandleErr(ctx, errors.New("once"), "default/web")
	if q.NumRequeues("default/web") != 1 {
		t.Fatalf("requeues %d after one failure, want 1", q.NumRequeues("default/web"))
	}
	q.HandleErr(ctx, nil, "default/web")
	if q.NumRequeues("default/web") != 0 {
		t.Errorf("requeues %d after a success, want 0 (forgotten)", q.NumRequeues("default/web"))
	}
	terminating := &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: 403, Reason: metav1.StatusReasonForbidden,
		Details: &metav1.StatusDetails{Causes: []metav1.StatusCause{{Type: corev1.NamespaceTerminatingCause}}},
	}}
	q.HandleErr(ctx, terminating, "gone/web")
	if q.NumRequeues("gone/web") != 0 {
		t.Errorf("a terminating namespace was requeued %d times, want forgotten", q.NumRequeues("gone/web"))
	}
}

func TestQueueRunProcessesUntilCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	q := NewQueue("test", fastLimiter(), 0, nil)
	synced := make(chan string, 4)
	fails := 2
	var mu sync.Mutex
	sync := func(_ context.Context, key string) error {
		mu.Lock()
		defer mu.Unlock()
		if fails > 0 {
			fails--
			return errors.New("not yet")
		}
		synced <- key
		return nil
	}
	done := make(chan struct{})
	go func() { q.Run(ctx, 2, sync); close(done) }()
	q.Add("default/web")
	select {
	case key := <-synced:
		if key != "default/web" {
			t.Errorf("synced %q", key)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the key was not synced after two failures")
	}
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
}

func TestQueueAddAfterKeepsTheEarliestTime(t *testing.T) {
	q := NewQueue("test", nil, 0, nil)
	defer q.ShutDown()
	start := time.Now()
	q.AddAfter("default/web", 100*time.Millisecond)
	q.AddAfter("default/web", time.Hour) // a later change in the same burst
	q.AddAfter("default/web", 150*time.Millisecond)
	key, quit := q.queue.Get()
	if quit || key != "default/web" {
		t.Fatalf("got %q (quit %v), want default/web", key, quit)
	}
	if waited := time.Since(start); waited < 100*time.Millisecond || waited > 30*time.Second {
		t.Errorf("key came after %v, want after the first delay (100ms)", waited)
	}
	q.queue.Done(key)
	if n := q.Len(); n != 0 {
		t.Errorf("%d keys still queued after the burst, want 0 (three AddAfter give one sync)", n)
	}
}
