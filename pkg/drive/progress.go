package drive

import (
	"fmt"
	"time"
)

// PlainStatusEvery is how often plain output (not a terminal: a CI log, a pipe) gets the
// status line of a long wait as a line of its own: once nothing was printed for that long,
// and then every that long, so that a log shows a drive waiting for pods, for the API server
// or for the controller, with what it waits for, instead of falling silent for minutes.
// pkg/printer's DriveProgress applies it to the events whose Kind IsStatus.
const PlainStatusEvery = 30 * time.Second

// progress hands the driver's progress events to Options.Progress (nil: discarded).
type progress struct {
	emitFn func(Event)
}

func newProgress(fn func(Event)) *progress {
	if fn == nil {
		fn = func(Event) {}
	}
	return &progress{emitFn: fn}
}

// emit sends one event.
func (p *progress) emit(e Event) { p.emitFn(e) }

// linef sends a line that has no typed event of its own (EventNote: the lease's lines).
func (p *progress) linef(format string, args ...any) {
	p.emit(Event{Kind: EventNote, Text: fmt.Sprintf(format, args...)})
}
