package cmd

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/utils/ptr"
)

func TestCompletionScripts(t *testing.T) {
	for shell, marker := range map[string]string{
		"bash":       "__start_kubectl-rollplan",
		"zsh":        "#compdef kubectl-rollplan",
		"fish":       "complete -c kubectl-rollplan",
		"powershell": "Register-ArgumentCompleter -CommandName 'kubectl-rollplan'",
	} {
		t.Run(shell, func(t *testing.T) {
			streams, _, out, _ := genericiooptions.NewTestIOStreams()
			root := NewCmdRollplan(streams)
			root.SetArgs([]string{"completion", shell})
			if err := root.Execute(); err != nil {
				t.Fatal(err)
			}
			script := out.String()
			if !strings.Contains(script, marker) || !strings.Contains(script, "__complete") {
				t.Errorf("%s script lacks %q or the __complete call:\n%.400s", shell, marker, script)
			}
		})
	}
}

func TestCompletionNeedsOneKnownShell(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, "shell not specified"},
		{[]string{"tcsh"}, `unsupported shell "tcsh"`},
		{[]string{"bash", "zsh"}, "too many arguments"},
	} {
		streams, _, out, _ := genericiooptions.NewTestIOStreams()
		root := NewCmdRollplan(streams)
		root.SetArgs(append([]string{"completion"}, tt.args...))
		root.SetErr(&bytes.Buffer{})
		err := root.Execute()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("completion %v: got %v, want an error with %q", tt.args, err, tt.want)
		}
		if out.Len() != 0 {
			t.Errorf("completion %v printed a script on error", tt.args)
		}
	}
}

// Objects of a small cluster: namespace team-a has web (revisions 1 and 3, 3 current; the
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

func clusterObjects() []runtime.Object {
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

// fakeAPIServer serves the objects of clusterObjects over HTTP, as much of the API as completion
// uses: list namespaces and deployments, get a deployment, list replicasets by label selector.
// It records the paths it was asked for.
func fakeAPIServer(t *testing.T) (*httptest.Server, *[]string) {
	var seen []string
	var mu sync.Mutex // requests of several contexts arrive at once
	objs := clusterObjects()
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

// kubeconfig writes a kubeconfig for server with contexts ctx-a (namespace team-a, current) and
// ctx-b (namespace team-b).
func kubeconfig(t *testing.T, server string) string {
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

// complete runs cobra's hidden __complete command on the real root, as the shell scripts and
// kubectl_complete-rollplan do, and returns the completions and the directive line.
func complete(t *testing.T, args ...string) ([]string, string) {
	t.Helper()
	streams, _, out, _ := genericiooptions.NewTestIOStreams()
	root := NewCmdRollplan(streams)
	var buf bytes.Buffer
	root.SetOut(&buf)
	root.SetErr(&bytes.Buffer{})
	root.SetArgs(append([]string{cobra.ShellCompRequestCmd}, args...))
	if err := root.Execute(); err != nil {
		t.Fatalf("__complete %v: %v", args, err)
	}
	if out.Len() != 0 {
		t.Fatalf("__complete wrote to the command's stdout: %q", out.String())
	}
	lines := strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
	return lines[:len(lines)-1], lines[len(lines)-1]
}

func TestDynamicCompletionThroughTheCommandLine(t *testing.T) {
	srv, seen := fakeAPIServer(t)
	kc := kubeconfig(t, srv.URL)
	noFile := ":4"           // ShellCompDirectiveNoFileComp
	noFileKeepOrder := ":36" // NoFileComp | KeepOrder
	for _, tt := range []struct {
		name      string
		args      []string
		want      []string
		directive string
	}{
		{"history: names in the context's namespace", []string{"history", "--kubeconfig", kc, ""}, []string{"api", "web", "worker"}, noFile},
		{"preview: -n wins over the context", []string{"preview", "--kubeconfig", kc, "-n", "team-b", ""}, []string{"batch"}, noFile},
		{"undo: --context selects team-b", []string{"undo", "--kubeconfig", kc, "--context", "ctx-b", ""}, []string{"batch"}, noFile},
		{"pause: deploy/ prefix kept", []string{"pause", "--kubeconfig", kc, "deploy/w"}, []string{"deploy/web", "deploy/worker"}, noFile},
		{"second argument: the names not given yet", []string{"resume", "--kubeconfig", kc, "web", ""}, []string{"api", "worker"}, noFile},
		{"third argument, prefixes kept", []string{"pause", "--kubeconfig", kc, "web", "deploy/api", "deploy/"}, []string{"deploy/worker"}, noFile},
		{"drive takes one name: second argument nothing", []string{"drive", "--kubeconfig", kc, "web", ""}, nil, noFile},
		{"history --diff: later arguments are revisions", []string{"history", "--kubeconfig", kc, "web", "--diff", ""}, nil, noFile},
		{"deploy.v1.apps/ prefix kept", []string{"pause", "--kubeconfig", kc, "deploy.v1.apps/a"}, []string{"deploy.v1.apps/api"}, noFile},
		{"TYPE NAME: names after the type", []string{"history", "--kubeconfig", kc, "deployment", "w"}, []string{"web", "worker"}, noFile},
		{"TYPE TYPE/NAME: nothing", []string{"history", "--kubeconfig", kc, "deployment", "deploy/w"}, nil, noFile},
		{"TYPE NAME NAME: the names not given yet", []string{"history", "--kubeconfig", kc, "deployment", "web", ""}, []string{"api", "worker"}, noFile},
		{"undo deploy.v1.apps/web --to-revision", []string{"undo", "deploy.v1.apps/web", "--kubeconfig", kc, "--to-revision", ""}, []string{"3\tnginx:1.20,envoy:1.30 (current)", "1\tnginx:1.18"}, noFileKeepOrder},
		{"undo deployment web --to-revision", []string{"undo", "deployment", "web", "--kubeconfig", kc, "--to-revision", ""}, []string{"3\tnginx:1.20,envoy:1.30 (current)", "1\tnginx:1.18"}, noFileKeepOrder},
		{"--to-revision after another kind", []string{"undo", "rs/web-1", "--kubeconfig", kc, "--to-revision", ""}, nil, noFile},
		{"undo --to-revision", []string{"undo", "deploy/web", "--kubeconfig", kc, "--to-revision", ""}, []string{"3\tnginx:1.20,envoy:1.30 (current)", "1\tnginx:1.18"}, noFileKeepOrder},
		{"history --revision=", []string{"history", "web", "--kubeconfig", kc, "--revision="}, []string{"3\tnginx:1.20,envoy:1.30 (current)", "1\tnginx:1.18"}, noFileKeepOrder},
		{"preview --to-revision without a deployment", []string{"preview", "--kubeconfig", kc, "--to-revision", ""}, nil, noFile},
		{"-n values", []string{"history", "--kubeconfig", kc, "-n", ""}, []string{"team-a", "team-b"}, noFile},
		{"--context values", []string{"history", "--kubeconfig", kc, "--context", "ctx-"}, []string{"ctx-a", "ctx-b"}, noFile},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, directive := complete(t, tt.args...)
			if d := cmp.Diff(tt.want, got, cmpEmptyNil); d != "" {
				t.Errorf("completions (-want +got):\n%s", d)
			}
			if directive != tt.directive {
				t.Errorf("directive %s, want %s", directive, tt.directive)
			}
		})
	}
	if len(*seen) == 0 {
		t.Error("the fake API server was never asked: completions did not come from the cluster")
	}
}

var cmpEmptyNil = cmp.Transformer("nilEmpty", func(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
})
