package estimate_test

import (
	"strings"
	"testing"

	"github.com/rollplan/kubectl-rollplan/pkg/estimate"
)

// FuzzParseReadyAfter: any --pod-ready-after value either parses into 1 or 16 ready-after
// values within [Min, Max] with Min <= Median <= Max, or is refused with one line naming
// the flag; never a panic.
func FuzzParseReadyAfter(f *testing.F) {
	for _, s := range []string{"2s", "1s..4s", "0s", "1m30s..2m", "4s..1s", "-1s", "..", "1s..2s..3s", "1h\n..2h", "9223372036s", "1e3s", "0s..2562047h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := estimate.ParseReadyAfter(s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "--pod-ready-after ") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("%q: error %q is not one line naming --pod-ready-after", s, err)
			}
			return
		}
		if n := len(e.ReadyAfter); (n != 1 && n != 16) || (n == 1) != (e.Min == e.Max) {
			t.Fatalf("%q: %d values for %s..%s", s, n, e.Min, e.Max)
		}
		if e.Min < 0 || e.Min > e.Median || e.Median > e.Max {
			t.Fatalf("%q: min/median/max %s/%s/%s", s, e.Min, e.Median, e.Max)
		}
		for _, d := range e.ReadyAfter {
			// Rounding to the millisecond may step just outside a range narrower than 1 ms.
			if d < e.Min.Truncate(1e6) || d > e.Max+1e6 {
				t.Fatalf("%q: value %s outside %s..%s", s, d, e.Min, e.Max)
			}
		}
	})
}
