package framework

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Environment variables the framework reads.
const (
	// EnvKubeconfig names a kubeconfig of a running cluster to reuse instead of starting one.
	EnvKubeconfig = "ROLLPLAN_E2E_KUBECONFIG"
	// EnvRequired, when "1", turns "cluster binaries cannot be built" from a skip into a
	// failure. The Makefile sets it.
	EnvRequired = "ROLLPLAN_E2E_REQUIRED"
)

// Cluster is a running local cluster and the paths a test needs to talk to it.
type Cluster struct {
	// Kubeconfig is the path of an admin kubeconfig of the cluster.
	Kubeconfig string
	// Config is the rest.Config loaded from Kubeconfig (QPS 100, burst 200).
	Config *rest.Config
	// Client is a clientset built from Config.
	Client kubernetes.Interface
	// RootDir is the repository root (the directory of the main go.mod).
	RootDir string
	// BinDir holds the cluster binaries, kubectl and the plugin: RootDir/_output/bin.
	BinDir string
	// StateDir is the up.sh state dir when this process started the cluster, else "".
	StateDir string
}

var (
	once     sync.Once
	cluster  *Cluster
	setupErr error
	skipMsg  string // non-empty: the binaries could not be built
	stopOnce sync.Once
	started  *Cluster // the cluster this process started with up.sh, to stop after the tests
)

// Main is TestMain for an e2e package: it runs the tests, then stops the cluster if this
// process started one, and exits with the tests' exit code.
func Main(m *testing.M) {
	os.Exit(Run(m))
}

// Run runs m's tests and stops a cluster started by Get afterwards (and on SIGINT/SIGTERM).
// It returns m.Run's exit code.
func Run(m *testing.M) int {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		s := <-sig
		fmt.Fprintf(os.Stderr, "framework: %v: stopping the local cluster\n", s)
		stop()
		os.Exit(130)
	}()
	code := m.Run()
	signal.Stop(sig)
	stop()
	return code
}

// Get returns the shared cluster, starting it on first use (see the package doc). It skips
// t if the cluster binaries cannot be built and EnvRequired is not "1", and fails t if the
// cluster cannot be reached or started.
func Get(t testing.TB) *Cluster {
	t.Helper()
	once.Do(setup)
	if skipMsg != "" {
		if os.Getenv(EnvRequired) == "1" {
			t.Fatalf("e2e: %s (%s=1, so this fails instead of skipping)", skipMsg, EnvRequired)
		}
		t.Skipf("e2e: %s; skipping (set %s=1 to make this a failure)", skipMsg, EnvRequired)
	}
	if setupErr != nil {
		t.Fatalf("e2e: %v", setupErr)
	}
	return cluster
}

func setup() {
	root, err := repoRoot()
	if err != nil {
		setupErr = err
		return
	}
	c := &Cluster{RootDir: root, BinDir: filepath.Join(root, "_output", "bin")}
	if kc := os.Getenv(EnvKubeconfig); kc != "" {
		c.Kubeconfig = kc
	} else {
		if err := c.start(); err != nil {
			return // skipMsg or setupErr set
		}
	}
	if err := c.connect(); err != nil {
		setupErr = err
		return
	}
	cluster = c
}

// start builds the binaries (cached) and runs up.sh in a fresh state dir.
func (c *Cluster) start() error {
	build := exec.Command(filepath.Join(c.RootDir, "hack", "cluster", "build.sh"))
	build.Dir = c.RootDir
	if out, err := build.CombinedOutput(); err != nil {
		skipMsg = fmt.Sprintf("cannot build the local cluster binaries (hack/cluster/build.sh: %v): %s", err, lastLines(out, 5))
		return errors.New(skipMsg)
	}
	if err := os.MkdirAll(filepath.Join(c.RootDir, "_output"), 0o755); err != nil {
		setupErr = fmt.Errorf("create _output: %w", err)
		return setupErr
	}
	dir, err := os.MkdirTemp(filepath.Join(c.RootDir, "_output"), "e2e-cluster-")
	if err != nil {
		setupErr = fmt.Errorf("create cluster state dir: %w", err)
		return setupErr
	}
	c.StateDir = dir
	fmt.Fprintf(os.Stderr, "framework: starting a local cluster in %s\n", dir)
	began := time.Now()
	up := exec.Command(filepath.Join(c.RootDir, "hack", "cluster", "up.sh"))
	up.Dir = c.RootDir
	up.Env = append(os.Environ(), "ROLLPLAN_CLUSTER_DIR="+dir)
	var out bytes.Buffer
	up.Stdout, up.Stderr = &out, &out
	if err := up.Run(); err != nil {
		setupErr = fmt.Errorf("start local cluster (hack/cluster/up.sh, logs in %s/logs): %v: %s", dir, err, lastLines(out.Bytes(), 30))
		return setupErr
	}
	fmt.Fprintf(os.Stderr, "framework: local cluster up in %s\n", time.Since(began).Round(100*time.Millisecond))
	c.Kubeconfig = filepath.Join(dir, "kubeconfig")
	started = c
	return nil
}

func (c *Cluster) connect() error {
	cfg, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	if err != nil {
		return fmt.Errorf("load kubeconfig %s: %w", c.Kubeconfig, err)
	}
	cfg.QPS, cfg.Burst = 100, 200
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("client for %s: %w", c.Kubeconfig, err)
	}
	if _, err := client.Discovery().ServerVersion(); err != nil {
		return fmt.Errorf("reach the cluster of %s: %w", c.Kubeconfig, err)
	}
	c.Config, c.Client = cfg, client
	return nil
}

// stop stops the API servers this process started (SharedAPIServer) and runs down.sh
// for a cluster this process started. A cluster whose start failed was
// already stopped by up.sh, which keeps its state dir for the logs.
func stop() {
	stopOnce.Do(func() {
		stopServers()
		if started == nil {
			return
		}
		down := exec.Command(filepath.Join(started.RootDir, "hack", "cluster", "down.sh"))
		down.Env = append(os.Environ(), "ROLLPLAN_CLUSTER_DIR="+started.StateDir)
		if out, err := down.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "framework: stop local cluster in %s: %v: %s\n", started.StateDir, err, out)
		}
	})
}

// repoRoot walks up from the working directory to the directory holding the main module's
// go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("get working directory: %w", err)
	}
	for d := dir; ; d = filepath.Dir(d) {
		b, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil && bytes.HasPrefix(b, []byte("module github.com/rollplan/kubectl-rollplan\n")) {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("find the repository root: no go.mod of module github.com/rollplan/kubectl-rollplan above %s", dir)
		}
	}
}

func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
