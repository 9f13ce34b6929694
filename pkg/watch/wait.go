package watch

import (
	"context"
	"errors"
	"time"
)

// ErrTimeout is returned by Wait when its timeout passes before the condition holds.
var ErrTimeout = errors.New("timed out")

// Cond is a condition Wait evaluates: done, or an error that ends the wait.
type Cond func() (done bool, err error)

// Tick is called about once a second while Wait waits, with the time waited so far.
type Tick func(waited time.Duration)

// waitOn is the core of Wait, free of informers: it evaluates cond at once and again on
// every value received from changed, every second (after calling tick, when not nil), until
// cond returns done or an error, ctx ends (its cause), or timeout passes (ErrTimeout). now
// is the clock of the time waited passed to tick; the deadline and the ticks are timers.
// With again (not nil), a second's tick that finds nothing received from changed for
// silent (by the timers' clock) calls again (a re-read, which may send on changed) and
// evaluates cond after it; the silence is counted from then on.
func waitOn(ctx context.Context, changed <-chan struct{}, timeout time.Duration, cond Cond, tick Tick, now func() time.Time, silent time.Duration, again func()) error {
	began := now()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	ticker := time.NewTicker(time.Second)
	defer ticker.Stop()
	lastChange := time.Now()
	for {
		done, err := cond()
		if err != nil || done {
			return err
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-deadline.C:
			return ErrTimeout
		case <-changed:
			lastChange = time.Now()
		case <-ticker.C:
			if tick != nil {
				tick(now().Sub(began))
			}
			if again != nil && time.Since(lastChange) >= silent {
				again()
				lastChange = time.Now()
			}
		}
	}
}
