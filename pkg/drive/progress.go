package drive

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// PlainStatusEvery is how often plain output (not a terminal: a CI log, a pipe) gets the
// status line of a long wait as a line of its own: once nothing was printed for that long,
// and then every that long, so that a log shows a drive waiting for pods, for the API server
// or for the controller, with what it waits for, instead of falling silent for minutes.
const PlainStatusEvery = 30 * time.Second

// progress writes the driver's progress: one line per event, and on a terminal a status
// line redrawn in place while it waits (elsewhere that line every PlainStatusEvery).
type progress struct {
	mu       sync.Mutex
	w        io.Writer
	live     bool
	onStatus bool // a status line is drawn and not yet ended
	now      func() time.Time
	last     time.Time // when the last line was printed (plain output)
}

func newProgress(w io.Writer, live bool) *progress {
	if w == nil {
		w = io.Discard
	}
	p := &progress{w: w, live: live, now: time.Now}
	p.last = p.now()
	return p
}

// linef prints a line (ending a drawn status line first).
func (p *progress) linef(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.onStatus {
		fmt.Fprint(p.w, "\r\033[K")
		p.onStatus = false
	}
	fmt.Fprintf(p.w, format+"\n", args...)
	p.last = p.now()
}

// statusf redraws the status line on a terminal. Elsewhere it prints it as a line when
// nothing was printed for PlainStatusEvery, and nothing otherwise (plain output gets the
// line that ends the wait).
func (p *progress) statusf(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.live {
		if now := p.now(); now.Sub(p.last) >= PlainStatusEvery {
			fmt.Fprintf(p.w, format+"\n", args...)
			p.last = now
		}
		return
	}
	fmt.Fprintf(p.w, "\r\033[K"+format, args...)
	p.onStatus = true
}
