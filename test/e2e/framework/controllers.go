package framework

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ControllersTimeout bounds WaitControllersServe: after a kube-apiserver outage the
// controllers of kube-controller-manager came back up to about 3 minutes later on the local
// cluster (the namespace controller handled nothing for 2m45s once; the probe measured
// 12 s to 1m31s); why so late is not known (client-go's relist backoff is a guess).
const ControllersTimeout = 5 * time.Minute

// WaitControllersServe waits until the cluster's controllers serve again after an outage of
// kube-apiserver or etcd, and returns how long that took: a probe namespace gets its
// default ServiceAccount (serviceaccount-controller), and a 1-replica Deployment in it
// rolls out (deployment-controller, replicaset-controller, kube-scheduler, kwok). The
// probe namespace is deleted afterwards (not waited for). It fails t after timeout.
//
// While it waits, the control plane's controllers are supervised: one that exits is started
// again (supervise), as a kubelet restarts a static pod.
//
// StartComponent calls it after a start of kube-apiserver or etcd (so do Outage and the
// restart when a test ends), so that a test, and the tests after it, go on with a cluster
// whose controllers have relisted, not one still in their backoff.
func (c *Cluster) WaitControllersServe(t testing.TB, timeout time.Duration) time.Duration {
	t.Helper()
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	defer c.supervise(ctx, t)()
	var ns string
	err := poll(ctx, 200*time.Millisecond, timeout, func(ctx context.Context) (bool, error) {
		created, err := c.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-probe-"}}, metav1.CreateOptions{})
		if err != nil {
			return false, nil // the API server may still refuse writes (etcd catching up)
		}
		ns = created.Name
		return true, nil
	})
	if err != nil {
		t.Fatalf("the API server took no namespace within %s of the outage: %v", timeout, err)
	}
	defer func() {
		dctx, dcancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer dcancel()
		_ = c.Client.CoreV1().Namespaces().Delete(dctx, ns, metav1.DeleteOptions{})
	}()
	left := func() time.Duration { return max(timeout-time.Since(began), time.Second) }
	if err := c.waitForServiceAccount(ctx, ns, left()); err != nil {
		t.Fatalf("the serviceaccount-controller did not serve again within %s of the outage (no default ServiceAccount in %s)", timeout, ns)
	}
	d := NewDeployment("probe").Replicas(1).Build()
	d.Namespace = ns
	err = poll(ctx, 200*time.Millisecond, left(), func(ctx context.Context) (bool, error) {
		_, err := c.Client.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{})
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("create the probe Deployment in %s: %v", ns, err)
	}
	if _, err := c.WaitForDeployment(ctx, ns, "probe", left(), func(d *appsv1.Deployment) (string, bool, error) {
		msg, done, _ := RolloutStatus(d) // a progress-deadline error cannot come within the timeout
		return msg, done, nil
	}); err != nil {
		t.Fatalf("the Deployment controllers did not serve again within %s of the outage: %v", timeout, err)
	}
	took := time.Since(began)
	t.Logf("the controllers served again %s after the component was healthy", took.Round(100*time.Millisecond))
	return took
}

// Supervised are the components a real control plane's kubelet starts again when they exit
// (static pods, restartPolicy Always). kube-scheduler exits by design when it finds its
// cache corrupted (v1.36.3 pkg/scheduler/backend/cache/cache.go, UpdatePod: "Pod updated on
// a different node than previously added to. Scheduler cache is corrupted ...", then
// klog.FlushAndExit), and the relist after a kube-apiserver restart provoked that on the
// local cluster (seen in TestFaultDriveStsAPIServerRestart: the scheduler gone, every later
// test waiting 5 minutes for pods never scheduled).
var Supervised = []string{KubeControllerManager, KubeScheduler}

// supervise starts, in the background, a check every 2 s that each Supervised component of
// the cluster runs, starting one that exited again (logged with the last lines of its log);
// the returned stop ends the checks and waits for the last one. It does nothing on a cluster
// that up.sh did not start.
func (c *Cluster) supervise(ctx context.Context, t testing.TB) (stop func()) {
	t.Helper()
	dir := c.StateDir
	if dir == "" {
		dir = filepath.Dir(c.Kubeconfig)
	}
	if _, err := os.Stat(filepath.Join(dir, ".rollplan-cluster")); err != nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(2 * time.Second)
		defer tick.Stop()
		for {
			for _, name := range Supervised {
				if ctx.Err() != nil || c.component(ctx, dir, "status", name) == nil {
					continue
				}
				out, _ := os.ReadFile(filepath.Join(dir, "logs", name+".log"))
				t.Logf("%s exited; starting it again (as a kubelet restarts a static pod). Its log ended:\n%s", name, lastLines(out, 3))
				if err := c.component(context.Background(), dir, "start", name); err != nil {
					t.Errorf("start %s again: %v", name, err)
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return func() { cancel(); <-done }
}
