package framework

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
)

// ServiceAccountKubeconfig creates ServiceAccount ns/name bound to ClusterRole role in ns (a
// RoleBinding: "cluster-admin" gives every right in ns alone; the aggregated roles such as
// "admin" are empty on the local cluster, which runs no clusterrole-aggregation controller),
// and returns the path of a kubeconfig that authenticates as it (a bound token
// valid for an hour) and the matching rest.Config: a user of its own, for example for an API
// Priority and Fairness FlowSchema.
func (c *Cluster) ServiceAccountKubeconfig(t testing.TB, ns, name, role string) (string, *rest.Config) {
	t.Helper()
	ctx := t.Context()
	if _, err := c.Client.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create serviceaccount %s/%s: %v", ns, name, err)
	}
	rb := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name + "-" + role},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: ns}},
	}
	if _, err := c.Client.RbacV1().RoleBindings(ns).Create(ctx, rb, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create rolebinding %s/%s: %v", ns, rb.Name, err)
	}
	tr, err := c.Client.CoreV1().ServiceAccounts(ns).CreateToken(ctx, name, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("token of serviceaccount %s/%s: %v", ns, name, err)
	}
	kc := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: local
  cluster:
    server: %s
    insecure-skip-tls-verify: true
users:
- name: %s
  user:
    token: %s
contexts:
- name: local
  context:
    cluster: local
    user: %s
    namespace: %s
current-context: local
`, c.Config.Host, name, tr.Status.Token, name, ns)
	path := filepath.Join(t.TempDir(), name+".kubeconfig")
	if err := os.WriteFile(path, []byte(kc), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := &rest.Config{Host: c.Config.Host, BearerToken: tr.Status.Token, TLSClientConfig: rest.TLSClientConfig{Insecure: true}, QPS: 1000, Burst: 1000}
	return path, cfg
}
