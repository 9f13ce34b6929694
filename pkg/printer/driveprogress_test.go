package printer

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rollplan/kubectl-rollplan/pkg/drive"
)

// TestDriveProgressPlainStatus: on plain output a wait's status line is printed only once
// nothing was printed for PlainStatusEvery, then every PlainStatusEvery; on a terminal it is
// redrawn in place every time.
func TestDriveProgressPlainStatus(t *testing.T) {
	var b strings.Builder
	clock := time.Date(2026, 11, 26, 6, 0, 0, 0, time.UTC)
	p := NewDriveProgress(&b, false)
	p.now = func() time.Time { return clock }
	p.Event(drive.Event{Kind: drive.EventNote, Text: "step 1/3 done"})
	for i := 1; i <= 70; i++ { // a status every second, as the waits tick
		clock = clock.Add(time.Second)
		p.Event(drive.Event{Kind: drive.EventWaitingAvailable, Step: 2, Steps: 3, ReplicaSet: "web-6f", Available: 9, Want: 10, Duration: time.Duration(i) * time.Second})
	}
	want := "step 1/3 done\n" +
		"step 2/3: waiting for web-6f: 9/10 available (30s)\n" +
		"step 2/3: waiting for web-6f: 9/10 available (1m0s)\n" // as a Duration prints
	if b.String() != want {
		t.Errorf("plain output:\n%s\nwant:\n%s", b.String(), want)
	}

	b.Reset()
	live := NewDriveProgress(&b, true)
	live.Event(drive.Event{Kind: drive.EventWaitingController, Message: "waiting", Duration: time.Second})
	live.Event(drive.Event{Kind: drive.EventWaitingController, Message: "waiting", Duration: 2 * time.Second})
	live.Event(drive.Event{Kind: drive.EventNote, Text: "done"})
	if got, want := b.String(), "\r\033[Kwaiting for the controller: waiting (1s)\r\033[Kwaiting for the controller: waiting (2s)\r\033[Kdone\n"; got != want {
		t.Errorf("terminal output %q, want %q", got, want)
	}
}

// TestDriveEventText: each kind renders to the line drive printed before it emitted events
// (the e2e tests read these lines).
func TestDriveEventText(t *testing.T) {
	ref := "deployment default/web"
	deadline := time.Date(2026, 11, 26, 6, 1, 2, 0, time.UTC)
	for _, tc := range []struct {
		name string
		e    drive.Event
		want string
	}{
		{"took over", drive.Event{Kind: drive.EventTookOver, Ref: ref, Strategy: "RollingUpdate maxSurge 1 maxUnavailable 0", ReplicaSet: "web-6f", Revision: "3"},
			"took over deployment default/web: paused, strategy Recreate (original RollingUpdate maxSurge 1 maxUnavailable 0 kept in annotation rollplan.dev/drive); new ReplicaSet web-6f, revision 3"},
		{"created one replica", drive.Event{Kind: drive.EventCreated, Step: 1, Steps: 3, ReplicaSet: "web-6f", Revision: "3", Replicas: 1},
			"step 1/3: created web-6f (revision 3) with 1 replica"},
		{"scaled down", drive.Event{Kind: drive.EventScaled, Step: 2, Steps: 3, Direction: "down", ReplicaSet: "web-5d", From: 3, To: 1},
			"step 2/3: scaled down web-5d from 3 to 1"},
		{"step done rounds to 10ms", drive.Event{Kind: drive.EventStepDone, Step: 2, Steps: 3, Duration: 1234567 * time.Microsecond, Counts: "new web-6f 2, old web-5d 1", Pods: 3, Available: 3, MaxPods: 4, MinAvailable: 3},
			"step 2/3 done in 1.23s: new web-6f 2, old web-5d 1; pods 3, available 3 (bounds: at most 4 pods, at least 3 available)"},
		{"timed out with reasons and pods", drive.Event{Kind: drive.EventStepTimedOut, Step: 1, Steps: 3, Message: "timed out", Stalled: []string{"2 pods ImagePullBackOff"}, Unavailable: []string{"web-6f-a"}},
			"step 1/3: timed out\nnot progressing:\n  2 pods ImagePullBackOff\npods not available:\n  web-6f-a"},
		{"timed out bare", drive.Event{Kind: drive.EventStepTimedOut, Step: 1, Steps: 3, Message: "timed out"}, "step 1/3: timed out"},
		{"retrying", drive.Event{Kind: drive.EventRetrying, What: "scale web-6f", Err: errors.New("EOF"), Deadline: deadline},
			"warning: scale web-6f: EOF: retrying (until 06:01:02 at the latest)"},
		{"recovered after one retry", drive.Event{Kind: drive.EventRecovered, What: "scale web-6f", Attempt: 1, Duration: 1260 * time.Millisecond},
			"scale web-6f: the API server answered again after 1 retry (1.3s)"},
		{"recovered after two", drive.Event{Kind: drive.EventRecovered, What: "scale web-6f", Attempt: 2, Duration: time.Second},
			"scale web-6f: the API server answered again after 2 retries (1s)"},
		{"handed back at", drive.Event{Kind: drive.EventHandedBackAt, Ref: ref, Step: 1, Steps: 3, Strategy: "Recreate", Paused: false},
			"handed deployment default/web back to the controller at step 1 of 3: strategy Recreate, paused false"},
		{"recorder warning", drive.Event{Kind: drive.EventWarning, Message: "event: forbidden"}, "warning: event: forbidden"},
		{"note", drive.Event{Kind: drive.EventNote, Text: "continuing the drive"}, "continuing the drive"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, DriveEventText(tc.e)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}
