package drive

import (
	"strings"
	"testing"
	"time"
)

// TestProgressPlainStatus: on plain output a wait's status line is printed only once nothing
// was printed for PlainStatusEvery, then every PlainStatusEvery; on a terminal it is redrawn
// in place every time.
func TestProgressPlainStatus(t *testing.T) {
	var b strings.Builder
	clock := time.Date(2026, 11, 26, 6, 0, 0, 0, time.UTC)
	p := newProgress(&b, false)
	p.now = func() time.Time { return clock }
	p.linef("step 1/3 done")
	for i := 1; i <= 70; i++ { // a status every second, as the waits tick
		clock = clock.Add(time.Second)
		p.statusf("step 2/3: waiting for web-6f: 9/10 available (%ds)", i)
	}
	want := "step 1/3 done\n" +
		"step 2/3: waiting for web-6f: 9/10 available (30s)\n" +
		"step 2/3: waiting for web-6f: 9/10 available (60s)\n"
	if b.String() != want {
		t.Errorf("plain output:\n%s\nwant:\n%s", b.String(), want)
	}

	b.Reset()
	live := newProgress(&b, true)
	live.statusf("waiting (%ds)", 1)
	live.statusf("waiting (%ds)", 2)
	live.linef("done")
	if got, want := b.String(), "\r\033[Kwaiting (1s)\r\033[Kwaiting (2s)\r\033[Kdone\n"; got != want {
		t.Errorf("terminal output %q, want %q", got, want)
	}
}
