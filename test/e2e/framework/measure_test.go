package framework

import (
	"os"
	"runtime"
	"testing"
)

// TestMeasurePeakMemoryIsTheCommands: with the test binary holding 200 MiB, Measure of a
// command that holds nothing reports a few MiB (the child's rusage would say at least 200),
// and of a shell holding a 40 MB string at least that; an exit code in ok is not a failure.
func TestMeasurePeakMemoryIsTheCommands(t *testing.T) {
	if _, err := os.Stat(TimePath); err != nil {
		t.Skipf("%s missing (the bench targets install it): %v", TimePath, err)
	}
	ballast := make([]byte, 200<<20)
	for i := range ballast {
		ballast[i] = 1 // touch every page: resident
	}
	small := Measure(t, nil, []string{"/bin/true"})
	big := Measure(t, nil, []string{"/bin/sh", "-c", `x=$(head -c 40000000 /dev/zero | tr '\0' a); exit 3`}, 3)
	runtime.KeepAlive(ballast)
	if !small.Exact || small.MaxRSSKiB <= 0 || small.MaxRSSKiB > 20<<10 {
		t.Errorf("/bin/true: %d KiB (exact %v), want a few MiB, not the test binary's 200+", small.MaxRSSKiB, small.Exact)
	}
	if big.ExitCode != 3 || big.MaxRSSKiB < 38<<10 || big.MaxRSSKiB > 150<<10 {
		t.Errorf("a shell holding 40 MB: %d KiB, exit %d; want 38-150 MiB and 3", big.MaxRSSKiB, big.ExitCode)
	}
}
