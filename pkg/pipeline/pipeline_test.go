package pipeline

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	k8stesting "k8s.io/client-go/testing"
	"sigs.k8s.io/yaml"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// objects: in shop, web (tier=front, 4 replicas, with an orphan ReplicaSet of its template)
// and db (tier=back); in bank, ledger.
func objects() []runtime.Object {
	web := testutil.Deployment("web").Namespace("shop").Label("tier", "front").Replicas(4).Build()
	orphan := testutil.ReplicaSetFor(testutil.Deployment("web").Namespace("shop").Label("tier", "front").Replicas(4).Image("nginx:0").Build()).Orphan().Replicas(0).Build()
	db := testutil.Deployment("db").Namespace("shop").Label("tier", "back").Replicas(3).Build()
	ledger := testutil.Deployment("ledger").Namespace("bank").Replicas(1).Build()
	return []runtime.Object{web, testutil.ReplicaSetFor(web).Build(), orphan, db, testutil.ReplicaSetFor(db).Build(), ledger, testutil.ReplicaSetFor(ledger).Build()}
}

func namespace(name string) *corev1.Namespace {
	ns := &corev1.Namespace{}
	ns.Name = name
	return ns
}

func stateFile(t *testing.T) string {
	t.Helper()
	var items []any
	for _, o := range objects() {
		items = append(items, o)
	}
	b, err := yaml.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "state.yaml")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func names(ms []Member) []string {
	var out []string
	for _, m := range ms {
		s := m.Source + ":" + m.Namespace + "/" + m.Name
		if m.Err != nil {
			s += " error"
		}
		out = append(out, s)
	}
	return out
}

func bulk(ns, selector string) Selection {
	return Selection{Bulk: true, Scope: target.Scope{Namespace: ns, LabelSelector: selector}}
}

// A state file and a live cluster select the same Deployments for -l, --all, -A and names.
func TestSelectFileAndLive(t *testing.T) {
	sf := stateFile(t)
	for _, tc := range []struct {
		name string
		sel  Selection
		want []string
	}{
		{"--all", bulk("shop", ""), []string{":shop/db", ":shop/web"}},
		{"-l", bulk("shop", "tier=front"), []string{":shop/web"}},
		{"-A", bulk("", ""), []string{":bank/ledger", ":shop/db", ":shop/web"}},
		{"-A -l", bulk("", "tier"), []string{":shop/db", ":shop/web"}},
		{"names", Selection{Refs: []target.Ref{{Namespace: "shop", Name: "web"}, {Namespace: "shop", Name: "gone"}}}, []string{":shop/web", ":shop/gone error"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file, err := NewFile(sf).Select(context.Background(), tc.sel)
			if err != nil {
				t.Fatal(err)
			}
			c := fake.NewClientset(objects()...)
			live, err := NewLive("", "", func() (kubernetes.Interface, error) { return c, nil }).Select(context.Background(), tc.sel)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, names(file)); d != "" {
				t.Errorf("file (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.want, names(live)); d != "" {
				t.Errorf("live (-want +got):\n%s", d)
			}
		})
	}
}

// Live: a bulk selection is two LISTs; RequireNamespace adds one GET of the namespace, which
// fails the Source when the namespace is missing and is skipped when forbidden; the
// context's namespace replaces the selection's unless -n was given; AllowMissing turns a
// missing Deployment into an empty State.
func TestLiveSelect(t *testing.T) {
	ctx := context.Background()
	verbs := func(c *fake.Clientset) []string {
		var out []string
		for _, a := range c.Actions() {
			out = append(out, a.GetVerb()+" "+a.GetResource().Resource+" "+a.GetNamespace())
		}
		return out
	}
	c := fake.NewClientset(append(objects(), namespace("shop"))...)
	src := NewLive("east", "", func() (kubernetes.Interface, error) { return c, nil })
	ms, err := src.Select(ctx, Selection{Bulk: true, Scope: target.Scope{Namespace: "shop"}, RequireNamespace: true})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"east:shop/db", "east:shop/web"}, names(ms)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"get namespaces ", "list deployments shop", "list replicasets shop"}, verbs(c)); d != "" {
		t.Errorf("requests (-want +got):\n%s", d)
	}

	// The context's namespace (bank) over the current context's (shop), unless -n.
	src = NewLive("west", "bank", func() (kubernetes.Interface, error) { return c, nil })
	ms, _ = src.Select(ctx, bulk("shop", ""))
	if d := cmp.Diff([]string{"west:bank/ledger"}, names(ms)); d != "" {
		t.Errorf("context namespace (-want +got):\n%s", d)
	}
	sel := bulk("shop", "")
	sel.ExplicitNamespace = true
	ms, _ = src.Select(ctx, sel)
	if d := cmp.Diff([]string{"west:shop/db", "west:shop/web"}, names(ms)); d != "" {
		t.Errorf("-n (-want +got):\n%s", d)
	}

	// bank has no Namespace object here: missing.
	_, err = src.Select(ctx, Selection{Refs: []target.Ref{{Namespace: "shop", Name: "ledger"}}, RequireNamespace: true})
	if err == nil || err.Error() != "namespace bank not found" {
		t.Errorf("missing namespace: %v", err)
	}
	// Forbidden: no failure.
	c.PrependReactor("get", "namespaces", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "namespaces"}, "bank", errors.New("no"))
	})
	if ms, err = src.Select(ctx, Selection{Refs: []target.Ref{{Name: "ledger"}}, RequireNamespace: true}); err != nil || names(ms)[0] != "west:bank/ledger" {
		t.Errorf("forbidden namespace GET: %v %v", names(ms), err)
	}
	// AllowMissing.
	ms, _ = src.Select(ctx, Selection{Refs: []target.Ref{{Name: "new"}}, AllowMissing: true})
	if ms[0].Err != nil || ms[0].State == nil || ms[0].State.Deployment != nil {
		t.Errorf("AllowMissing: %+v", ms[0])
	}
}

func TestResolveContexts(t *testing.T) {
	known := []string{"prod-eu", "prod-us", "staging"}
	for _, tc := range []struct {
		names   []string
		all     bool
		want    []string
		wantErr string
	}{
		{names: []string{"staging", "prod-eu"}, want: []string{"staging", "prod-eu"}},
		{names: []string{"staging", "staging"}, want: []string{"staging"}},
		{all: true, want: known},
		{names: []string{"prod-eu", "prod-asia"}, wantErr: `--contexts: context "prod-asia" is not in the kubeconfig; its contexts are: prod-eu, prod-us, staging`},
		{names: []string{""}, wantErr: "--contexts: an empty context name"},
	} {
		got, err := ResolveContexts(known, tc.names, tc.all)
		if tc.wantErr != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) {
				t.Errorf("%v: error %v, want %q", tc.names, err, tc.wantErr)
			}
			continue
		}
		if d := cmp.Diff(tc.want, got); err != nil || d != "" {
			t.Errorf("%v: %v (-want +got):\n%s", tc.names, err, d)
		}
	}
	if _, err := ResolveContexts(nil, nil, true); err == nil {
		t.Error("--all-contexts of a kubeconfig without contexts: no error")
	}
}

// Kubeconfig: each context's Source has the context's namespace (or -n) and a client of its
// own server, built on first use.
func TestKubeconfigSource(t *testing.T) {
	cfg := `apiVersion: v1
kind: Config
clusters:
- {name: eu, cluster: {server: "https://eu.example:6443"}}
- {name: us, cluster: {server: "https://us.example:6443"}}
users: [{name: u, user: {token: t}}]
contexts:
- {name: prod-eu, context: {cluster: eu, user: u, namespace: shop}}
- {name: prod-us, context: {cluster: us, user: u}}
current-context: prod-eu
`
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	cf := genericclioptions.NewConfigFlags(true)
	cf.KubeConfig = &path
	hosts := map[string]string{}
	k := &Kubeconfig{Flags: cf, Tune: func(c *rest.Config) { c.QPS = 50 }, NewClient: func(name string, c *rest.Config) (kubernetes.Interface, error) {
		hosts[name] = c.Host
		if c.QPS != 50 {
			t.Errorf("%s: Tune not applied", name)
		}
		return fake.NewClientset(), nil
	}}
	got, err := k.Resolve(nil, true)
	if d := cmp.Diff([]string{"prod-eu", "prod-us"}, got); err != nil || d != "" {
		t.Fatalf("%v (-want +got):\n%s", err, d)
	}
	for _, tc := range []struct{ name, ns, host string }{{"prod-eu", "shop", "https://eu.example:6443"}, {"prod-us", "default", "https://us.example:6443"}} {
		src, err := k.Source(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		if len(hosts) != 0 && hosts[tc.name] != "" {
			t.Errorf("%s: client built before use", tc.name)
		}
		if _, err := src.Client(); err != nil {
			t.Fatal(err)
		}
		if src.Name() != tc.name || src.Namespace != tc.ns || hosts[tc.name] != tc.host {
			t.Errorf("%s: namespace %q host %q", src.Name(), src.Namespace, hosts[tc.name])
		}
	}
}

// fakeSource is a Source whose Select waits for started to close (every Source started)
// before answering, or fails.
type fakeSource struct {
	name    string
	members []Member
	err     error
	wait    func() error
}

func (s *fakeSource) Name() string                          { return s.name }
func (s *fakeSource) Live() bool                            { return false }
func (s *fakeSource) Client() (kubernetes.Interface, error) { return nil, errors.New("none") }
func (s *fakeSource) Select(context.Context, Selection) ([]Member, error) {
	if err := s.wait(); err != nil {
		return nil, err
	}
	return s.members, s.err
}

// Run reads the Sources at the same time (each waits until all have started), keeps their
// order, and plans the others when one fails.
func TestRunConcurrentSources(t *testing.T) {
	web := testutil.Deployment("web").Namespace("shop").Replicas(2).Build()
	st, err := cluster.StateOf(web, []*appsv1.ReplicaSet{testutil.ReplicaSetFor(web).Build()})
	if err != nil {
		t.Fatal(err)
	}
	const n = 3
	started := make(chan struct{}, n)
	wait := func() error {
		started <- struct{}{}
		deadline := time.After(10 * time.Second)
		for len(started) < n {
			select {
			case <-deadline:
				return errors.New("read alone: the Sources are read one after another")
			case <-time.After(time.Millisecond):
			}
		}
		return nil
	}
	var srcs []Source
	for _, name := range []string{"a", "b", "c"} {
		s := &fakeSource{name: name, wait: wait, members: []Member{{Source: name, Ref: target.Ref{Namespace: "shop", Name: "web"}, State: st}}}
		if name == "b" {
			s.err, s.members = errors.New("connection refused"), nil
		}
		srcs = append(srcs, s)
	}
	cfg := &Config{Readiness: planner.ReadinessBatched}
	var got []string
	for _, r := range cfg.Run(context.Background(), srcs, Selection{}) {
		line := r.Source + ":"
		if r.Err != nil {
			line += " " + r.Err.Error()
		}
		for _, p := range r.Results {
			line += " " + p.Name + " " + string(p.Plan.Outcome)
		}
		got = append(got, line)
	}
	if d := cmp.Diff([]string{"a: web NoChange", "b: connection refused", "c: web NoChange"}, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// Plan runs the checks on every plan, after the change's warnings: orphan and offline by
// default, then a registered one.
func TestPlanChecks(t *testing.T) {
	ms, err := NewFile(stateFile(t)).Select(context.Background(), Selection{Refs: []target.Ref{{Namespace: "shop", Name: "web"}}})
	if err != nil || ms[0].Err != nil {
		t.Fatal(err, ms)
	}
	src := NewFile("unused")
	change := func(_ context.Context, _ Source, st *cluster.State, _ string) (*appsv1.Deployment, []string, error) {
		d := st.Deployment.DeepCopy()
		d.Spec.Template.Spec.Containers[0].Image = "nginx:2"
		return d, []string{"from the change"}, nil
	}
	cfg := &Config{Readiness: planner.ReadinessBatched, Change: change, FromManifest: true}
	r := cfg.Plan(context.Background(), src, ms[0])
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if len(r.Warnings) != 3 || r.Warnings[0] != "from the change" || !strings.HasPrefix(r.Warnings[1], "offline: ") || !strings.Contains(r.Warnings[2], "has no owner") {
		t.Errorf("warnings: %q", r.Warnings)
	}
	cfg.Checks = append(Checks(), Check{Name: "replicas", Run: func(in Input) []string {
		if in.Desired.Spec.Replicas != nil && *in.Desired.Spec.Replicas > 3 {
			return []string{"more than 3 replicas"}
		}
		return nil
	}})
	r = cfg.Plan(context.Background(), src, ms[0])
	if len(r.Warnings) != 4 || r.Warnings[3] != "more than 3 replicas" {
		t.Errorf("warnings with a check added: %q", r.Warnings)
	}
	// A live state of no manifest: neither offline nor the change's.
	cfg = &Config{Readiness: planner.ReadinessBatched}
	live := NewLive("", "", func() (kubernetes.Interface, error) { return nil, errors.New("unused") })
	r = cfg.Plan(context.Background(), live, ms[0])
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "has no owner") {
		t.Errorf("no change: %q", r.Warnings)
	}
}

func TestRegister(t *testing.T) {
	before := len(Checks())
	Register(Check{Name: "test", Run: func(Input) []string { return []string{"x"} }})
	t.Cleanup(func() { checksMu.Lock(); checks = checks[:before]; checksMu.Unlock() })
	cs := Checks()
	if len(cs) != before+1 || cs[before].Name != "test" || cs[0].Name != "offline" || cs[1].Name != "orphan" {
		t.Errorf("checks: %d, want %d", len(cs), before+1)
	}
}
