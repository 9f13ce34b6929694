package watch

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

func TestWaitOn(t *testing.T) {
	t.Run("true after a change", func(t *testing.T) {
		changed := make(chan struct{}, 1)
		var flag atomic.Bool
		calls := 0
		go func() {
			time.Sleep(20 * time.Millisecond)
			flag.Store(true)
			changed <- struct{}{}
		}()
		err := waitOn(context.Background(), changed, 5*time.Second, func() (bool, error) { calls++; return flag.Load(), nil }, nil, time.Now, 0, nil)
		if err != nil || calls != 2 {
			t.Errorf("err %v after %d evaluations, want nil after 2 (at once, then on the change)", err, calls)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		began := time.Now()
		err := waitOn(context.Background(), make(chan struct{}), 30*time.Millisecond, func() (bool, error) { return false, nil }, nil, time.Now, 0, nil)
		if !errors.Is(err, ErrTimeout) || time.Since(began) < 30*time.Millisecond {
			t.Errorf("err %v after %s, want ErrTimeout after 30ms", err, time.Since(began))
		}
	})
	t.Run("cond error", func(t *testing.T) {
		boom := errors.New("boom")
		if err := waitOn(context.Background(), nil, time.Second, func() (bool, error) { return false, boom }, nil, time.Now, 0, nil); !errors.Is(err, boom) {
			t.Errorf("err %v, want boom", err)
		}
	})
	t.Run("context cause", func(t *testing.T) {
		cause := errors.New("lost the hold")
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(cause)
		if err := waitOn(ctx, nil, time.Second, func() (bool, error) { return false, nil }, nil, time.Now, 0, nil); !errors.Is(err, cause) {
			t.Errorf("err %v, want the context's cause", err)
		}
	})
	t.Run("tick reports the injected clock", func(t *testing.T) {
		base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		var n atomic.Int64
		clock := func() time.Time { return base.Add(time.Duration(n.Add(1)) * time.Minute) }
		var waited time.Duration
		err := waitOn(context.Background(), nil, 1500*time.Millisecond, func() (bool, error) { return waited > 0, nil },
			func(w time.Duration) { waited = w }, clock, 0, nil)
		if err != nil || waited != time.Minute {
			t.Errorf("err %v, tick saw %s; want done after one tick that saw 1m by the injected clock", err, waited)
		}
	})
}
