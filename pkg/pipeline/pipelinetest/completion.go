// Package pipelinetest holds the fixtures the tests of pkg/pipeline and of pkg/cmd share:
// a small cluster of Deployments and ReplicaSets, an API server serving it over HTTP, and a
// kubeconfig with two contexts on that server.
package pipelinetest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// CompletionObjects are the objects of a small cluster: namespace team-a has web (revisions 1 and 3, 3 current; the
// ReplicaSet of revision 2 belongs to another Deployment of the same labels), api and worker;
// team-b has batch.
func deployment(ns, name string, uid types.UID, revision string) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: uid, Annotations: map[string]string{"deployment.kubernetes.io/revision": revision}},
		Spec:       appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}},
	}
}

func replicaSet(ns, name, app string, owner types.UID, revision string, images ...string) *appsv1.ReplicaSet {
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": app},
		Annotations: map[string]string{"deployment.kubernetes.io/revision": revision}}}
	if owner != "" {
		rs.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: app, UID: owner, Controller: ptr.To(true)}}
	}
	for i, img := range images {
		rs.Spec.Template.Spec.Containers = append(rs.Spec.Template.Spec.Containers, corev1.Container{Name: string(rune('a' + i)), Image: img})
	}
	return rs
}

func CompletionObjects() []runtime.Object {
	return []runtime.Object{
		deployment("team-a", "web", "uid-web", "3"),
		deployment("team-a", "api", "uid-api", "1"),
		deployment("team-a", "worker", "uid-worker", "1"),
		deployment("team-b", "batch", "uid-batch", "1"),
		replicaSet("team-a", "web-1", "web", "uid-web", "1", "nginx:1.18"),
		replicaSet("team-a", "web-3", "web", "uid-web", "3", "nginx:1.20", "envoy:1.30"),
		replicaSet("team-a", "web-other", "web", "uid-someone-else", "2", "nginx:1.19"),
		replicaSet("team-a", "web-orphan", "web", "", "4", "nginx:1.21"),
		replicaSet("team-a", "web-norev", "web", "uid-web", "", "nginx:0"),
		replicaSet("team-a", "api-1", "api", "uid-api", "1", "api:1"),
	}
}

// APIServer serves objs (CompletionObjects) over HTTP, as much of the API as completion uses:
// list namespaces (team-a and team-b) and deployments, get a namespace or a deployment, list
// replicasets by label selector. It records the paths it was asked for, and closes with t.
func APIServer(t *testing.T, objs []runtime.Object) (*httptest.Server, *[]string) {
	var seen []string
	var mu sync.Mutex // requests of several contexts arrive at once

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, r.URL.Path)
		parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
		write := func(v any) {
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(v)
		}
		sel, err := labels.Parse(r.URL.Query().Get("labelSelector"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		switch {
		case r.URL.Path == "/api/v1/namespaces":
			write(&corev1.NamespaceList{TypeMeta: metav1.TypeMeta{Kind: "NamespaceList", APIVersion: "v1"},
				Items: []corev1.Namespace{{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}}, {ObjectMeta: metav1.ObjectMeta{Name: "team-b"}}}})
		case len(parts) == 4 && parts[2] == "namespaces" && (parts[3] == "team-a" || parts[3] == "team-b"):
			write(&corev1.Namespace{TypeMeta: metav1.TypeMeta{Kind: "Namespace", APIVersion: "v1"}, ObjectMeta: metav1.ObjectMeta{Name: parts[3]}})
		case len(parts) == 6 && parts[5] == "deployments":
			list := &appsv1.DeploymentList{TypeMeta: metav1.TypeMeta{Kind: "DeploymentList", APIVersion: "apps/v1"}}
			for _, o := range objs {
				if d, ok := o.(*appsv1.Deployment); ok && d.Namespace == parts[4] {
					list.Items = append(list.Items, *d)
				}
			}
			write(list)
		case len(parts) == 7 && parts[5] == "deployments":
			for _, o := range objs {
				if d, ok := o.(*appsv1.Deployment); ok && d.Namespace == parts[4] && d.Name == parts[6] {
					write(d)
					return
				}
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			json.NewEncoder(w).Encode(&metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: "Failure", Reason: metav1.StatusReasonNotFound, Code: 404})
		case len(parts) == 6 && parts[5] == "replicasets":
			list := &appsv1.ReplicaSetList{TypeMeta: metav1.TypeMeta{Kind: "ReplicaSetList", APIVersion: "apps/v1"}}
			for _, o := range objs {
				if rs, ok := o.(*appsv1.ReplicaSet); ok && rs.Namespace == parts[4] && sel.Matches(labels.Set(rs.Labels)) {
					list.Items = append(list.Items, *rs)
				}
			}
			write(list)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &seen
}

// Kubeconfig writes a kubeconfig for server with contexts ctx-a (namespace team-a, current) and
// ctx-b (namespace team-b).
func Kubeconfig(t *testing.T, server string) string {
	t.Helper()
	cfg := `apiVersion: v1
kind: Config
clusters:
- name: fake
  cluster:
    server: ` + server + `
users:
- name: tester
  user: {}
contexts:
- name: ctx-a
  context: {cluster: fake, user: tester, namespace: team-a}
- name: ctx-b
  context: {cluster: fake, user: tester, namespace: team-b}
current-context: ctx-a
`
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// NoRequestKubeconfig writes Kubeconfig for an API server that fails t on any request it
// receives (a resolution that must ask the server nothing), closed when t ends.
func NoRequestKubeconfig(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		t.Errorf("unexpected request %s %s", r.Method, r.URL)
	}))
	t.Cleanup(srv.Close)
	return Kubeconfig(t, srv.URL)
}
