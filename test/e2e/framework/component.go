package framework

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Components of the local cluster that StopComponent and StartComponent know
// (hack/cluster/component.sh).
const (
	Etcd                  = "etcd"
	KubeAPIServer         = "kube-apiserver"
	KubeControllerManager = "kube-controller-manager"
	KubeScheduler         = "kube-scheduler"
)

// ClusterDir returns the up.sh state dir of the cluster: StateDir when this process started
// it, else the directory of the kubeconfig when it is one (make e2e's cluster). It skips t
// when the cluster is not one of up.sh's (its components cannot be stopped and started).
func (c *Cluster) ClusterDir(t testing.TB) string {
	t.Helper()
	dir := c.StateDir
	if dir == "" {
		dir = filepath.Dir(c.Kubeconfig)
	}
	if _, err := os.Stat(filepath.Join(dir, ".rollplan-cluster")); err != nil {
		t.Skipf("the cluster of %s was not started by hack/cluster/up.sh: its components cannot be stopped and started", c.Kubeconfig)
	}
	return dir
}

// component runs hack/cluster/component.sh with args on the cluster's state dir.
func (c *Cluster) component(ctx context.Context, dir string, args ...string) error {
	cmd := exec.CommandContext(ctx, filepath.Join(c.RootDir, "hack", "cluster", "component.sh"), args...)
	cmd.Env = append(os.Environ(), "ROLLPLAN_CLUSTER_DIR="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("hack/cluster/component.sh %s: %v: %s", strings.Join(args, " "), err, lastLines(out, 10))
	}
	return nil
}

// StopComponent stops component name (Etcd, KubeAPIServer, KubeControllerManager, ...) of
// the cluster: with kill, SIGKILL (a crash), else SIGTERM. It fails t if it cannot, and
// starts the component again when t ends if the test has not.
func (c *Cluster) StopComponent(t testing.TB, name string, kill bool) {
	t.Helper()
	dir := c.ClusterDir(t)
	args := []string{"stop", name}
	if kill {
		args = append(args, "--kill")
	}
	if err := c.component(context.Background(), dir, args...); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Leave the cluster whole for the next test. A component the test started again
		// (StartComponent, Outage) was made whole then: nothing more to do.
		if c.component(context.Background(), dir, "status", name) == nil {
			return
		}
		if err := c.component(context.Background(), dir, "start", name); err != nil {
			t.Errorf("start %s again after the test: %v", name, err)
			return
		}
		c.afterStart(t, name)
	})
}

// StartComponent starts component name again and waits until it is healthy (up to 90 s),
// then makes the cluster whole (afterStart).
func (c *Cluster) StartComponent(t testing.TB, name string) {
	t.Helper()
	c.startComponent(t, name)
	c.afterStart(t, name)
}

// startComponent starts component name and waits until it is healthy; it fails t if it cannot.
func (c *Cluster) startComponent(t testing.TB, name string) {
	t.Helper()
	if err := c.component(context.Background(), c.ClusterDir(t), "start", name); err != nil {
		t.Fatal(err)
	}
}

// afterStart makes the cluster whole after component name started again: after etcd it
// restarts kwok, and after kube-apiserver or etcd it waits until the controllers serve
// again (WaitControllersServe).
//
// kwok stands in for the kubelets, and kwok v0.7.0 drops a stage whose write fails: seen in
// make faults, a pod whose pod-ready patch met the etcd restart ("rpc error: code =
// Unavailable desc = error reading from server: EOF") stayed Pending for good, and the drive
// waiting for it held at its progress timeout. A kubelet's status manager writes again; a
// kube-apiserver outage makes kwok relist, which plays the stage again, but an etcd restart
// leaves kwok's watch open and nothing plays it. Restarted, kwok lists every pod and plays
// the stages each one is due.
func (c *Cluster) afterStart(t testing.TB, name string) {
	t.Helper()
	if name == Etcd {
		if err := c.component(context.Background(), c.ClusterDir(t), "restart", "kwok"); err != nil {
			t.Fatalf("restart kwok after etcd: %v", err)
		}
	}
	if restartsControllers(name) {
		c.WaitControllersServe(t, ControllersTimeout)
	}
}

// restartsControllers reports whether an outage of component name makes the controllers'
// informers relist: every watch goes through kube-apiserver, and etcd's restart ends them.
func restartsControllers(name string) bool { return name == KubeAPIServer || name == Etcd }

// Outage stops component name (SIGKILL with kill), keeps it down for down, then starts it
// and waits until it is healthy. It returns how long the component did not serve: from the
// stop to healthy again (down plus its start); then it makes the cluster whole (afterStart:
// kwok restarted after etcd, and after kube-apiserver or etcd a wait until the controllers
// serve again, which WaitControllersServe logs). Call it from the test goroutine.
func (c *Cluster) Outage(t testing.TB, name string, down time.Duration, kill bool) time.Duration {
	t.Helper()
	began := time.Now()
	c.StopComponent(t, name, kill)
	time.Sleep(down)
	c.startComponent(t, name)
	unavailable := time.Since(began)
	c.afterStart(t, name)
	return unavailable
}
