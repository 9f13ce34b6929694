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
		// Leave the cluster whole for the next test (start is a no-op when it runs).
		if err := c.component(context.Background(), dir, "start", name); err != nil {
			t.Errorf("start %s again after the test: %v", name, err)
			return
		}
		if restartsControllers(name) {
			c.WaitControllersServe(t, ControllersTimeout)
		}
	})
}

// StartComponent starts component name again and waits until it is healthy (up to 90 s);
// after kube-apiserver or etcd, also until the controllers serve again
// (WaitControllersServe).
func (c *Cluster) StartComponent(t testing.TB, name string) {
	t.Helper()
	if err := c.component(context.Background(), c.ClusterDir(t), "start", name); err != nil {
		t.Fatal(err)
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
// stop to healthy again (down plus its start); after kube-apiserver or etcd it then waits
// until the controllers serve again (WaitControllersServe, which logs how long that took).
// Call it from the test goroutine.
func (c *Cluster) Outage(t testing.TB, name string, down time.Duration, kill bool) time.Duration {
	t.Helper()
	began := time.Now()
	c.StopComponent(t, name, kill)
	time.Sleep(down)
	if err := c.component(context.Background(), c.ClusterDir(t), "start", name); err != nil {
		t.Fatal(err)
	}
	unavailable := time.Since(began)
	if restartsControllers(name) {
		c.WaitControllersServe(t, ControllersTimeout)
	}
	return unavailable
}
