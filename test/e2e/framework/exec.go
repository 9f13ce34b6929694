package framework

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Result is the outcome of a command run against the cluster.
type Result struct {
	Stdout, Stderr string
	// ExitCode is the process's exit code (-1 if it did not run or was killed).
	ExitCode int
}

// PluginPath is the plugin binary `make build` writes: BinDir/kubectl-rollplan.
func (c *Cluster) PluginPath() string { return filepath.Join(c.BinDir, "kubectl-rollplan") }

// KubectlPath is the cluster's kubectl v1.36.3 (built by hack/cluster/build.sh), never the
// machine's: $ROLLPLAN_BIN/kubectl if ROLLPLAN_BIN is set (as for build.sh), else
// BinDir/kubectl.
func (c *Cluster) KubectlPath() string {
	if dir := os.Getenv("ROLLPLAN_BIN"); dir != "" {
		return filepath.Join(dir, "kubectl")
	}
	return filepath.Join(c.BinDir, "kubectl")
}

// Plugin runs the plugin binary with args against the cluster (KUBECONFIG set to the test
// kubeconfig) and returns its output; it fails t if the binary is missing (run `make build`)
// or cannot start. A non-zero exit is not a failure: check Result.ExitCode.
func (c *Cluster) Plugin(t testing.TB, args ...string) Result {
	t.Helper()
	if _, err := os.Stat(c.PluginPath()); err != nil {
		t.Fatalf("plugin binary %s not found: run `make build` first (make e2e does)", c.PluginPath())
	}
	return c.run(t, c.PluginPath(), args...)
}

// Kubectl runs the cluster's kubectl with args against the cluster. BinDir comes first on
// PATH, so `Kubectl(t, "rollplan", ...)` runs the plugin through kubectl's plugin discovery.
func (c *Cluster) Kubectl(t testing.TB, args ...string) Result {
	t.Helper()
	return c.run(t, c.KubectlPath(), args...)
}

// RaceExitCode is the exit code of a plugin built with -race (make build-race) that found
// a data race: Env sets GORACE so that the first race reported ends the process with it.
const RaceExitCode = 66

// raceReport is what the race detector writes to stderr for each race it finds.
const raceReport = "WARNING: DATA RACE"

// Env is the environment commands run with: the test's environment, KUBECONFIG set to the
// cluster's, BinDir first on PATH, and GORACE="halt_on_error=1 exitcode=66" unless GORACE
// is set (for a plugin built with -race; ignored by any other binary).
func (c *Cluster) Env() []string {
	env := make([]string, 0, len(os.Environ())+3)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "KUBECONFIG=") && !strings.HasPrefix(kv, "PATH=") {
			env = append(env, kv)
		}
	}
	if _, ok := os.LookupEnv("GORACE"); !ok {
		env = append(env, fmt.Sprintf("GORACE=halt_on_error=1 exitcode=%d", RaceExitCode))
	}
	return append(env, "KUBECONFIG="+c.Kubeconfig, "PATH="+c.BinDir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// CheckRace fails t when output (a command's stderr, or its combined output) holds a race
// detector report: the plugin, built with -race by make e2e, found a data race.
func CheckRace(t testing.TB, what, output string) {
	t.Helper()
	if i := strings.Index(output, raceReport); i >= 0 {
		t.Errorf("%s reported a data race:\n%s", what, output[i:])
	}
}

func (c *Cluster) run(t testing.TB, bin string, args ...string) Result {
	t.Helper()
	res, err := c.Run(t.Context(), bin, args...)
	if err != nil {
		t.Fatal(err)
	}
	CheckRace(t, filepath.Base(bin)+" "+strings.Join(args, " "), res.Stderr)
	return res
}

// Run runs bin with args in the cluster's environment (Env) and returns its output. The
// error is non-nil only if the command could not run; a non-zero exit is in ExitCode.
func (c *Cluster) Run(ctx context.Context, bin string, args ...string) (Result, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = c.Env()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := Result{Stdout: stdout.String(), Stderr: stderr.String(), ExitCode: -1}
	if cmd.ProcessState != nil {
		res.ExitCode = cmd.ProcessState.ExitCode()
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return res, fmt.Errorf("run %s %s: %w", filepath.Base(bin), strings.Join(args, " "), err)
	}
	return res, nil
}
