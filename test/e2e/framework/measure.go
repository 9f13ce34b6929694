package framework

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TimePath is GNU time (Debian's package "time"), which Measure runs a command under to read
// its peak memory; the bench targets of the Makefile install it when it is missing
// (hack/bench-time.sh).
const TimePath = "/usr/bin/time"

// Measurement is one run of a command by Measure.
type Measurement struct {
	// Wall is the time from the start of the command to its exit.
	Wall time.Duration
	// MaxRSSKiB is the command's peak resident memory, KiB: GNU time's %M.
	MaxRSSKiB int64
	// Exact is false when TimePath was missing: MaxRSSKiB is then this process's rusage of its
	// child, which Linux raises to the test binary's own resident memory at the exec (Go
	// starts a child in the parent's memory, CLONE_VM, and exec records that memory's
	// high-water mark as the child's), so it is at least the test binary's size.
	Exact bool
	// ExitCode is the command's exit code.
	ExitCode int
}

// Measure runs argv with env (nil: this process's), its stdout read and dropped, and returns
// its wall time and peak memory. The memory is GNU time's, which forks the command from its
// own small process, so it is the command's alone; without TimePath, see Measurement.Exact.
// An exit code other than 0 and those in ok (kubectl diff's 1, "differences found") fails t
// with the last lines of the command's stderr.
func Measure(t testing.TB, env, argv []string, ok ...int) Measurement {
	t.Helper()
	out := filepath.Join(t.TempDir(), "maxrss")
	run, exact := argv, false
	if _, err := os.Stat(TimePath); err == nil {
		run, exact = append([]string{TimePath, "-f", "%M", "-o", out}, argv...), true
	}
	cmd := exec.Command(run[0], run[1:]...)
	cmd.Env = env
	var stderr strings.Builder
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	began := time.Now()
	err := cmd.Run()
	m := Measurement{Wall: time.Since(began), Exact: exact, ExitCode: -1}
	if cmd.ProcessState != nil {
		m.ExitCode = cmd.ProcessState.ExitCode()
	}
	if err != nil && (m.ExitCode <= 0 || !slices.Contains(ok, m.ExitCode)) {
		t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, lastLines([]byte(stderr.String()), 20))
	}
	if !exact {
		if ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage); ru != nil {
			m.MaxRSSKiB = ru.Maxrss
		}
		return m
	}
	raw, err := os.ReadFile(out)
	fields := strings.Fields(string(raw)) // after a non-zero exit: "Command exited with non-zero status 1" first
	if err != nil || len(fields) == 0 {
		t.Fatalf("%s: no peak memory from %s: %v %q", strings.Join(argv, " "), TimePath, err, raw)
	}
	if m.MaxRSSKiB, err = strconv.ParseInt(fields[len(fields)-1], 10, 64); err != nil {
		t.Fatalf("%s: peak memory from %s: %v", strings.Join(argv, " "), TimePath, err)
	}
	return m
}
