package framework

import (
	"context"
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
// StartComponent calls it after a start of kube-apiserver or etcd (so do Outage and the
// restart when a test ends), so that a test, and the tests after it, go on with a cluster
// whose controllers have relisted, not one still in their backoff.
func (c *Cluster) WaitControllersServe(t testing.TB, timeout time.Duration) time.Duration {
	t.Helper()
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
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
