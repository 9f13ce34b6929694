package framework

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Background is a command started in the background (a drive under faults, a reload
// watcher, a verb started while the API server is down) whose output can be read while it
// runs. Start it with Cluster.StartPlugin.
type Background struct {
	Cmd            *exec.Cmd
	Stdout, Stderr SyncBuffer
	what           string // "drive deploy/web ..." for messages
	done           chan struct{}
}

// StartPlugin starts the plugin with args in the background, in the cluster's environment
// (Env) with env added (a later KUBECONFIG= wins). When t ends it is killed (if still
// running) and its stderr checked for a data race (CheckRace). It fails t if the process
// cannot start.
func (c *Cluster) StartPlugin(t testing.TB, env []string, args ...string) *Background {
	t.Helper()
	b := &Background{Cmd: exec.Command(c.PluginPath(), args...), what: filepath.Base(c.PluginPath()) + " " + strings.Join(args, " "), done: make(chan struct{})}
	b.Cmd.Env = append(c.Env(), env...)
	b.Cmd.Stdout, b.Cmd.Stderr = &b.Stdout, &b.Stderr
	if err := b.Cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", c.PluginPath(), err)
	}
	go func() { _ = b.Cmd.Wait(); close(b.done) }()
	t.Cleanup(func() {
		_ = b.Cmd.Process.Kill()
		<-b.done
		CheckRace(t, b.what, b.Stderr.String())
	})
	return b
}

// Done is closed when the process has exited.
func (b *Background) Done() <-chan struct{} { return b.done }

// Exited reports whether the process has exited.
func (b *Background) Exited() bool {
	select {
	case <-b.done:
		return true
	default:
		return false
	}
}

// ExitCode is the exit code of the process once it exited (-1 when a signal killed it);
// -1 while it runs.
func (b *Background) ExitCode() int {
	if !b.Exited() {
		return -1
	}
	return b.Cmd.ProcessState.ExitCode()
}

// Wait waits until the process exits and returns its exit code; it fails t, with the
// process's stderr, when it still runs after timeout.
func (b *Background) Wait(t testing.TB, timeout time.Duration) int {
	t.Helper()
	select {
	case <-b.done:
	case <-time.After(timeout):
		t.Fatalf("%s still runs after %s\nstderr:\n%s", b.what, timeout, b.Stderr.String())
	}
	return b.Cmd.ProcessState.ExitCode()
}

// Stop sends sig to the process and waits (Wait) up to timeout; it returns the exit code.
func (b *Background) Stop(t testing.TB, sig os.Signal, timeout time.Duration) int {
	t.Helper()
	_ = b.Cmd.Process.Signal(sig)
	return b.Wait(t, timeout)
}

// LastLine is the last line the process wrote to stderr so far (for a drive: its last
// progress line, where a fault hit it).
func (b *Background) LastLine() string {
	lines := strings.Split(strings.TrimSpace(b.Stderr.String()), "\n")
	return lines[len(lines)-1]
}
