package framework

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var nonDNS = regexp.MustCompile(`[^a-z0-9-]+`)

// Namespace creates a fresh namespace for t, named after the test ("e2e-<test>-xxxxx"), and
// deletes it when t ends (without waiting: the namespace controller removes its contents).
func (c *Cluster) Namespace(t testing.TB) string {
	t.Helper()
	prefix := "e2e-" + strings.Trim(nonDNS.ReplaceAllString(strings.ToLower(t.Name()), "-"), "-")
	if len(prefix) > 50 {
		prefix = strings.TrimRight(prefix[:50], "-")
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}
	created, err := c.Client.CoreV1().Namespaces().Create(t.Context(), ns, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create namespace %s-*: %v", prefix, err)
	}
	name := created.Name
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := c.Client.CoreV1().Namespaces().Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			t.Logf("delete namespace %s: %v", name, err)
		}
	})
	if err := c.waitForServiceAccount(t.Context(), name, 30*time.Second); err != nil {
		t.Fatalf("wait for serviceaccount %s/default (is the serviceaccount-controller running?): %v", name, err)
	}
	return name
}

// waitForServiceAccount waits up to timeout for the serviceaccount controller to create
// "default" in ns: until it exists, pod admission rejects every pod of the namespace.
func (c *Cluster) waitForServiceAccount(ctx context.Context, ns string, timeout time.Duration) error {
	return poll(ctx, 50*time.Millisecond, timeout, func(ctx context.Context) (bool, error) {
		_, err := c.Client.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	})
}
