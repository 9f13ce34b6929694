package printer

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/rollplan/kubectl-rollplan/pkg/drive"
)

// DriveProgress renders drive's progress events (drive.Options.Progress) as text: one line
// per event, and on a terminal (live) a status line (drive.EventKind.IsStatus) redrawn in
// place while it waits; elsewhere that line only once nothing was printed for
// drive.PlainStatusEvery, then every that long. Safe for concurrent use.
type DriveProgress struct {
	mu       sync.Mutex
	w        io.Writer
	live     bool
	onStatus bool // a status line is drawn and not yet ended
	now      func() time.Time
	last     time.Time // when the last line was printed (plain output)
}

// NewDriveProgress renders to w (nil: discarded); live: w is a terminal.
func NewDriveProgress(w io.Writer, live bool) *DriveProgress {
	if w == nil {
		w = io.Discard
	}
	p := &DriveProgress{w: w, live: live, now: time.Now}
	p.last = p.now()
	return p
}

// Event renders one event (the func to set as drive.Options.Progress).
func (p *DriveProgress) Event(e drive.Event) {
	text := DriveEventText(e)
	p.mu.Lock()
	defer p.mu.Unlock()
	if e.Kind.IsStatus() {
		p.status(text)
		return
	}
	if p.onStatus {
		fmt.Fprint(p.w, "\r\033[K")
		p.onStatus = false
	}
	fmt.Fprint(p.w, text+"\n")
	p.last = p.now()
}

// status redraws the status line on a terminal. Elsewhere it prints it as a line when
// nothing was printed for drive.PlainStatusEvery, and nothing otherwise (plain output gets
// the line that ends the wait).
func (p *DriveProgress) status(text string) {
	if !p.live {
		if now := p.now(); now.Sub(p.last) >= drive.PlainStatusEvery {
			fmt.Fprint(p.w, text+"\n")
			p.last = now
		}
		return
	}
	fmt.Fprint(p.w, "\r\033[K"+text)
	p.onStatus = true
}

// DriveEventText is the text of one progress event, without the trailing newline (an
// EventStepTimedOut is several lines).
func DriveEventText(e drive.Event) string {
	switch e.Kind {
	case drive.EventWarning:
		return "warning: " + e.Message
	case drive.EventTookOver:
		return fmt.Sprintf("took over %s: paused, strategy Recreate (original %s kept in annotation %s); new ReplicaSet %s, revision %s",
			e.Ref, e.Strategy, drive.Annotation, e.ReplicaSet, e.Revision)
	case drive.EventAdmissionChanged:
		return fmt.Sprintf("the API server changed the template (admission): new ReplicaSet %s instead of %s", e.ReplicaSet, e.Previous)
	case drive.EventStaleCopiesFailed:
		return fmt.Sprintf("warning: remove stale copies of %s: %v", drive.Annotation, e.Err)
	case drive.EventNotObserved:
		return fmt.Sprintf("warning: the deployment controller has not observed the takeover of %s after 15s (is it running?): going on", e.Ref)
	case drive.EventNothingChanged:
		return fmt.Sprintf("%s: nothing changed", e.Ref)
	case drive.EventReplanned:
		return fmt.Sprintf("spec.replicas of %s changed from %d to %d while held (kubectl scale or an autoscaler): re-planned with at most %d pods, at least %d available",
			e.Ref, e.From, e.To, e.MaxPods, e.MinAvailable)
	case drive.EventSpecDrift:
		return fmt.Sprintf("warning: the spec of %s changed (generation %d -> %d) in fields drive does not hold (not the template, strategy, paused or replicas): continuing", e.Ref, e.From, e.To)
	case drive.EventBaking:
		return fmt.Sprintf("baking %s before step %d/%d", e.Duration, e.Step, e.Steps)
	case drive.EventCreated:
		return fmt.Sprintf("step %d/%d: created %s (revision %s) with %s", e.Step, e.Steps, e.ReplicaSet, e.Revision, replicaWord(e.Replicas))
	case drive.EventScaled:
		return fmt.Sprintf("step %d/%d: scaled %s %s from %d to %d", e.Step, e.Steps, e.Direction, e.ReplicaSet, e.From, e.To)
	case drive.EventStepDone:
		return fmt.Sprintf("step %d/%d done in %s: %s; pods %d, available %d (bounds: at most %d pods, at least %d available)",
			e.Step, e.Steps, e.Duration.Round(10*time.Millisecond), e.Counts, e.Pods, e.Available, e.MaxPods, e.MinAvailable)
	case drive.EventStepTimedOut:
		lines := []string{fmt.Sprintf("step %d/%d: %s", e.Step, e.Steps, e.Message)}
		if len(e.Stalled) > 0 {
			lines = append(lines, "not progressing:")
		}
		for _, r := range e.Stalled {
			lines = append(lines, "  "+r)
		}
		if len(e.Unavailable) > 0 {
			lines = append(lines, "pods not available:")
		}
		for _, p := range e.Unavailable {
			lines = append(lines, "  "+p)
		}
		return strings.Join(lines, "\n")
	case drive.EventWaitingOldPods:
		return fmt.Sprintf("step %d/%d: waiting for old pods to go: %s (%s)", e.Step, e.Steps, e.Message, e.Duration.Round(time.Second))
	case drive.EventWaitingAvailable:
		return fmt.Sprintf("step %d/%d: waiting for %s: %d/%d available (%s)", e.Step, e.Steps, e.ReplicaSet, e.Available, e.Want, e.Duration.Round(time.Second))
	case drive.EventRetrying:
		return fmt.Sprintf("warning: %s: %v: retrying (until %s at the latest)", e.What, e.Err, e.Deadline.Format(time.TimeOnly))
	case drive.EventRetryAttempt:
		return fmt.Sprintf("%s: attempt %d failed: %v; next in %s", e.What, e.Attempt, e.Err, e.Duration.Round(10*time.Millisecond))
	case drive.EventRecovered:
		retries := "retries"
		if e.Attempt == 1 {
			retries = "retry"
		}
		return fmt.Sprintf("%s: the API server answered again after %d %s (%s)", e.What, e.Attempt, retries, e.Duration.Round(100*time.Millisecond))
	case drive.EventHandedBack:
		return fmt.Sprintf("handed %s back to the controller: %s, strategy %s, paused %v", e.Ref, e.Message, e.Strategy, e.Paused)
	case drive.EventHandedBackAt:
		return fmt.Sprintf("handed %s back to the controller at step %d of %d: strategy %s, paused %v", e.Ref, e.Step, e.Steps, e.Strategy, e.Paused)
	case drive.EventWaitingController:
		return fmt.Sprintf("waiting for the controller: %s (%s)", e.Message, e.Duration.Round(time.Second))
	case drive.EventControllerDone:
		return e.Message
	case drive.EventTidyFailed:
		return fmt.Sprintf("warning: tidy the ReplicaSets of %s: %v", e.Ref, e.Err)
	}
	return e.Text
}

// replicaWord is "1 replica" or "N replicas".
func replicaWord(n int32) string {
	if n == 1 {
		return "1 replica"
	}
	return fmt.Sprintf("%d replicas", n)
}
