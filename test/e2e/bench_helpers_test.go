//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// The helpers of the benchmarks that run a command of ours beside kubectl's (bench-fleet,
// bench-manifests): the rounds measured by framework.Measure, the requests counted at -v=6.

// benchSeries is what rounds of one command measured: each wall time, the highest peak
// memory (KiB).
type benchSeries struct {
	walls  []time.Duration
	maxRSS int64
}

// benchRounds runs ours then theirs, rounds times, with env (framework.Measure; exit codes in
// ok are not failures), and returns each one's series. It logs once when the memory is not
// GNU time's (framework.Measurement.Exact).
func benchRounds(b *testing.B, env []string, rounds int, ours, theirs []string, ok ...int) (benchSeries, benchSeries) {
	b.Helper()
	var o, t benchSeries
	exact := true
	for range rounds {
		m := framework.Measure(b, env, ours, ok...)
		o.walls, o.maxRSS, exact = append(o.walls, m.Wall), max(o.maxRSS, m.MaxRSSKiB), exact && m.Exact
		m = framework.Measure(b, env, theirs, ok...)
		t.walls, t.maxRSS, exact = append(t.walls, m.Wall), max(t.maxRSS, m.MaxRSSKiB), exact && m.Exact
	}
	if !exact {
		b.Logf("%s is missing: the peak memory is the children's rusage, which counts this test binary's own memory too", framework.TimePath)
	}
	return o, t
}

// benchRequests runs argv once more with env and -v=6 and returns the API requests it
// logged as "VERB PATH" (fleet_test.go's requests). Exit codes in ok are not failures
// (kubectl diff's 1); no request logged is.
func benchRequests(b *testing.B, env, argv []string, ok ...int) []string {
	b.Helper()
	cmd := exec.Command(argv[0], append(slices.Clone(argv[1:]), "-v=6")...)
	cmd.Env = env
	var stderr strings.Builder
	cmd.Stderr = &stderr // stdout: nil, /dev/null
	if err := cmd.Run(); err != nil && !slices.Contains(ok, cmd.ProcessState.ExitCode()) {
		b.Fatalf("%s -v=6: %v\n%s", strings.Join(argv, " "), err, lastLines(stderr.String(), 20))
	}
	out := requests(stderr.String())
	if len(out) == 0 {
		b.Fatalf("%s -v=6 logged no request:\n%s", strings.Join(argv, " "), lastLines(stderr.String(), 20))
	}
	return out
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func durations(ds []time.Duration, med time.Duration) string {
	var parts []string
	for _, d := range ds {
		parts = append(parts, fmt.Sprintf("%.2f", d.Seconds()))
	}
	return fmt.Sprintf("%s; %.2fs", strings.Join(parts, " "), med.Seconds())
}

func envInt(key string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(key)); err == nil && v > 0 {
		return v
	}
	return def
}
