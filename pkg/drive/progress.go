package drive

import (
	"fmt"
	"io"
	"sync"
)

// progress writes the driver's progress: one line per event, and on a terminal a status
// line redrawn in place while it waits.
type progress struct {
	mu       sync.Mutex
	w        io.Writer
	live     bool
	onStatus bool // a status line is drawn and not yet ended
}

func newProgress(w io.Writer, live bool) *progress {
	if w == nil {
		w = io.Discard
	}
	return &progress{w: w, live: live}
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
}

// statusf redraws the status line on a terminal; elsewhere it prints nothing (plain output
// gets the line that ends the wait instead).
func (p *progress) statusf(format string, args ...any) {
	if !p.live {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "\r\033[K"+format, args...)
	p.onStatus = true
}
