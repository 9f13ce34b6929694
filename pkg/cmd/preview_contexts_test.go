package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	k8stesting "k8s.io/client-go/testing"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
)

// contextsKubeconfig writes a kubeconfig with contexts east, west and empty (served by fakes,
// see runContexts) and down, whose server is a closed port; every context's namespace is shop
// and the current one is east.
func contextsKubeconfig(t *testing.T) string {
	t.Helper()
	cfg := `apiVersion: v1
kind: Config
clusters:
- {name: up, cluster: {server: "http://127.0.0.1:1"}}
- {name: down, cluster: {server: "http://127.0.0.1:1"}}
users:
- {name: tester, user: {token: t}}
contexts:
- {name: east, context: {cluster: up, user: tester, namespace: shop}}
- {name: west, context: {cluster: up, user: tester, namespace: shop}}
- {name: empty, context: {cluster: up, user: tester, namespace: shop}}
- {name: down, context: {cluster: down, user: tester, namespace: shop}}
current-context: east
`
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// contextFakes: east holds fleetObjects (web mid-rollout to nginx:1.19, 4 replicas); west a
// settled web of 10 replicas only; empty has no namespace shop. Dry runs answer the object
// sent, as the server does.
func contextFakes() map[string]*fake.Clientset {
	shop := &corev1.Namespace{}
	shop.Name = "shop"
	web := testutil.Deployment("web").Namespace("shop").Label("tier", "front").Replicas(10).Image("nginx:1.19").Build()
	fakes := map[string]*fake.Clientset{
		"east":  fake.NewClientset(append(fleetObjects(), shop)...),
		"west":  fake.NewClientset(shop.DeepCopy(), web, testutil.ReplicaSetFor(web).Build()),
		"empty": fake.NewClientset(),
	}
	echo := func(a k8stesting.Action) (bool, runtime.Object, error) {
		return true, a.(interface{ GetObject() runtime.Object }).GetObject().(*appsv1.Deployment).DeepCopy(), nil
	}
	for _, c := range fakes {
		c.PrependReactor("update", "deployments", echo)
		c.PrependReactor("create", "deployments", echo)
	}
	return fakes
}

// runContexts runs a root with kubectl's connection flags and preview whose contexts are the
// fakes (down: a real client of a closed port).
func runContexts(t *testing.T, fakes map[string]*fake.Clientset, args ...string) (string, string, int) {
	t.Helper()
	cf := genericclioptions.NewConfigFlags(true)
	kc := &pipeline.Kubeconfig{Flags: cf, Tune: pipeline.FleetTune, NewClient: func(name string, cfg *rest.Config) (kubernetes.Interface, error) {
		if c, ok := fakes[name]; ok {
			return c, nil
		}
		return kubernetes.NewForConfig(cfg)
	}}
	var out, errOut bytes.Buffer
	streams := genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}
	root := &cobra.Command{Use: "kubectl-rollplan", SilenceUsage: true, SilenceErrors: true}
	cf.AddFlags(root.PersistentFlags())
	root.AddCommand(newCmdPreview(cmdutil.NewFactory(cf), kc, streams))
	root.SetArgs(append(args, "--kubeconfig", contextsKubeconfig(t)))
	code := ExitOK
	if err := root.Execute(); err != nil {
		code = HandleError(&errOut, err)
	}
	return out.String(), errOut.String(), code
}

// TestPreviewContextsSummary: --all across three contexts, one unreachable: a CONTEXT column
// first, each context's Deployments with its own plan, one stderr line for the unreachable
// one, exit 1.
func TestPreviewContextsSummary(t *testing.T) {
	t.Parallel()
	out, errOut, code := runContexts(t, contextFakes(), "preview", "--all", "--contexts", "west,down,east", "--summary")
	if code != ExitError {
		t.Errorf("exit %d, want %d", code, ExitError)
	}
	var rows []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(l)
		rows = append(rows, strings.Join(f[:4], " ")+" "+f[len(f)-1])
	}
	want := []string{
		"CONTEXT NAMESPACE DEPLOYMENT CHANGE OUTCOME",
		"west shop web none NoChange",
		"east shop api none NoChange",
		"east shop db none NoChange",
		"east shop web rollout Complete",
	}
	if d := cmp.Diff(want, rows); d != "" {
		t.Errorf("summary (-want +got):\n%s\n%s", d, out)
	}
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "error: context down: ") || !strings.Contains(lines[0], "connection refused") {
		t.Errorf("stderr: want one line naming context down and why, got %q", errOut)
	}
}

// TestPreviewContextsJSON: a change previewed in two contexts gives one RolloutPlanList, in
// the order of --contexts, each item carrying its context and planned on its cluster's state
// (west's web has 10 replicas, east's 4); a context without the namespace is one line, exit 1.
func TestPreviewContextsJSON(t *testing.T) {
	t.Parallel()
	out, errOut, code := runContexts(t, contextFakes(), "preview", "web", "--contexts", "west,east,empty", "--image", "*=nginx:1.28", "-o", "json")
	if code != ExitError || strings.TrimSpace(errOut) != "error: context empty: namespace shop not found" {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	var l v1alpha1.RolloutPlanList
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var got []string
	for _, p := range l.Items {
		got = append(got, p.Context+" "+p.Deployment.Namespace+"/"+p.Deployment.Name+" "+fmt.Sprint(p.Deployment.Replicas)+" "+p.Outcome)
	}
	if d := cmp.Diff([]string{"west shop/web 10 Complete", "east shop/web 4 Complete"}, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestPreviewContextsRefused: the flags' errors are one line, exit 1, and no request is sent
// (the kubeconfig's server records every path).
func TestPreviewContextsRefused(t *testing.T) {
	srv, seen := fakeAPIServer(t)
	kc := kubeconfig(t, srv.URL)
	sf := fleetStateFile(t)
	for _, tc := range []struct {
		args    []string
		wantErr string
	}{
		{[]string{"web", "--contexts", "ctx-a,nope"}, `error: --contexts: context "nope" is not in the kubeconfig; its contexts are: ctx-a, ctx-b`},
		{[]string{"web", "--contexts", "ctx-a,ctx-b", "--context", "ctx-a"}, "error: --context and --contexts/--all-contexts: name every context in --contexts"},
		{[]string{"web", "--contexts", "ctx-a", "--all-contexts"}, "error: --contexts and --all-contexts: give one of them"},
		{[]string{"web", "--all-contexts", "--state-file", sf}, "error: --state-file is one cluster's state"},
	} {
		_, errOut, code := runRoot(t, "", append([]string{"preview", "--kubeconfig", kc}, tc.args...)...)
		if code != ExitError || !strings.HasPrefix(errOut, tc.wantErr) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: exit %d, %q; want one line starting %q", tc.args, code, errOut, tc.wantErr)
		}
	}
	if len(*seen) != 0 {
		t.Errorf("requests sent before the refusal: %v", *seen)
	}
	// history keeps refusing -l/--all/-A with a state file (only preview reads them from it).
	_, errOut, code := runRoot(t, "", "history", "--all", "--state-file", sf)
	if code != ExitError || !strings.HasPrefix(errOut, "error: -l, --all and -A list a cluster: with --state-file, name the Deployments") {
		t.Errorf("history --all --state-file: exit %d, %q", code, errOut)
	}
}

// TestPreviewOneContext: --contexts with one context prints exactly what --context prints.
func TestPreviewOneContext(t *testing.T) {
	srv, _ := fakeAPIServer(t)
	kc := kubeconfig(t, srv.URL)
	for _, args := range [][]string{{"--all"}, {"--all", "-o", "json"}, {"batch", "--summary"}, {"batch"}} {
		want, wantErr, wantCode := runRoot(t, "", append([]string{"preview", "--kubeconfig", kc, "--context", "ctx-b"}, args...)...)
		got, gotErr, gotCode := runRoot(t, "", append([]string{"preview", "--kubeconfig", kc, "--contexts", "ctx-b"}, args...)...)
		if got != want || gotErr != wantErr || gotCode != wantCode {
			t.Errorf("%v: --contexts ctx-b printed (exit %d)\n%s%s\n--context ctx-b (exit %d)\n%s%s", args, gotCode, got, gotErr, wantCode, want, wantErr)
		}
		if wantCode != ExitOK || strings.Contains(got, "CONTEXT") || strings.Contains(got, `"context"`) {
			t.Errorf("%v: exit %d, a context column or field in one context's output:\n%s%s", args, wantCode, got, wantErr)
		}
	}
}

// TestPreviewStateFileBulk: a state file takes -l, --all and -A as a cluster does, its
// Deployments in the API server's order (namespace, then name).
func TestPreviewStateFileBulk(t *testing.T) {
	sf := fleetStateFile(t)
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--all", "-n", "shop"}, []string{"shop api", "shop db", "shop web"}},
		{[]string{"-l", "tier=front", "-n", "shop"}, []string{"shop api", "shop web"}},
		{[]string{"-A"}, []string{"bank ledger", "shop api", "shop db", "shop web"}},
		{[]string{"--all", "-n", "bank"}, []string{"bank ledger"}},
	} {
		out, errOut, code := runRoot(t, "", append([]string{"preview", "--state-file", sf, "--summary"}, tc.args...)...)
		if code != ExitOK {
			t.Errorf("%v: exit %d: %s", tc.args, code, errOut)
			continue
		}
		var got []string
		for _, l := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
			f := strings.Fields(l)
			got = append(got, f[0]+" "+f[1])
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%v (-want +got):\n%s", tc.args, d)
		}
	}
}

// TestPreviewContextsCompletion: --contexts completes the kubeconfig's context names.
func TestPreviewContextsCompletion(t *testing.T) {
	srv, seen := fakeAPIServer(t)
	kc := kubeconfig(t, srv.URL)
	got, directive := complete(t, "preview", "--kubeconfig", kc, "--contexts", "ctx-a,")
	if d := cmp.Diff([]string{"ctx-a,ctx-b"}, got); d != "" || !strings.HasPrefix(directive, ":") {
		t.Errorf("(-want +got):\n%s (directive %s)", d, directive)
	}
	if len(*seen) != 0 {
		t.Errorf("completion sent requests: %v", *seen)
	}
}

// TestPreviewContextsManifestSet: a manifest set previewed in two contexts is planned on each
// one's live state: web (nginx:1.19 to 1.28) updates east's 4 replicas and west's 10, api is
// an update in east and a create in west; the unreachable context is one line, exit 1.
func TestPreviewContextsManifestSet(t *testing.T) {
	t.Parallel()
	set := filepath.Join(t.TempDir(), "set.yaml")
	manifest := `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop, labels: {tier: front}}
spec:
  replicas: 6
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: nginx, image: "nginx:1.28"}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: shop}
spec:
  replicas: 2
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec: {containers: [{name: api, image: "api:2"}]}
`
	if err := os.WriteFile(set, []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runContexts(t, contextFakes(), "preview", "-f", set, "--contexts", "east,down,west", "-o", "json")
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	if code != ExitError || len(lines) != 1 || !strings.HasPrefix(lines[0], "error: context down: ") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	var l v1alpha1.RolloutPlanList
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var got []string
	for _, p := range l.Items {
		got = append(got, fmt.Sprintf("%s %s %s %d %s", p.Context, p.Deployment.Name, p.Manifest.Change, p.ReplicaSets[0].InitialReplicas, p.Outcome))
	}
	want := []string{"east web Update 2 Complete", "east api Update 2 Complete", "west web Update 10 Complete", "west api Create 0 Complete"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}

	// Human: the summary has CONTEXT first and SOURCE last.
	out, _, _ = runContexts(t, contextFakes(), "preview", "-f", set, "--contexts", "east,west", "--summary")
	if first := strings.Fields(strings.SplitN(out, "\n", 2)[0]); first[0] != "CONTEXT" || first[len(first)-1] != "SOURCE" {
		t.Errorf("summary header: %q", out)
	}
}
