//go:build e2e

package e2e

import (
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// The multi-context tests (issue 19): preview --contexts across two real API servers, the
// local cluster (context "main", controllers running) and a bare etcd + kube-apiserver
// (context "second", framework.SharedAPIServer, shared by these tests), plus a context whose
// server refuses every connection ("down").

const (
	ctxMain, ctxSecond, ctxDown = "main", "second", "down"
	// secondServer is the name of the shared bare API server.
	secondServer = "contexts-second"
)

// contextsFixture is a namespace of the same name on both clusters and a kubeconfig with
// the contexts main, second and down.
type contextsFixture struct {
	c          *framework.Cluster
	second     *framework.APIServer
	ns         string
	kubeconfig string
}

func newContextsFixture(t *testing.T) *contextsFixture {
	t.Helper()
	c := framework.Get(t)
	second := framework.SharedAPIServer(t, secondServer)
	ns := c.Namespace(t)
	second.CreateNamespace(t, ns)
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	if err := framework.WriteKubeconfig(kc,
		framework.KubeContext{Name: ctxMain, Kubeconfig: c.Kubeconfig},
		framework.KubeContext{Name: ctxSecond, Kubeconfig: second.Kubeconfig},
		framework.Unreachable(t, ctxDown),
	); err != nil {
		t.Fatal(err)
	}
	return &contextsFixture{c: c, second: second, ns: ns, kubeconfig: kc}
}

// plugin runs the plugin with the fixture's kubeconfig.
func (f *contextsFixture) plugin(t *testing.T, args ...string) framework.Result {
	t.Helper()
	return f.c.Plugin(t, append([]string{"--kubeconfig", f.kubeconfig}, args...)...)
}

// previewJSON runs preview -n ns -o json with args and decodes the RolloutPlanList; it
// fails t on an exit code other than want.
func (f *contextsFixture) previewJSON(t *testing.T, want int, args ...string) (*v1alpha1.RolloutPlanList, framework.Result) {
	t.Helper()
	res := f.plugin(t, append([]string{"preview", "-n", f.ns, "-o", "json"}, args...)...)
	if res.ExitCode != want {
		t.Fatalf("preview %v: exit %d, want %d\nstdout: %s\nstderr: %s", args, res.ExitCode, want, res.Stdout, res.Stderr)
	}
	var l v1alpha1.RolloutPlanList
	if err := json.Unmarshal([]byte(res.Stdout), &l); err != nil {
		t.Fatalf("preview %v: decode: %v\nstdout: %s\nstderr: %s", args, err, res.Stdout, res.Stderr)
	}
	return &l, res
}

// byContext groups the plans of l by their context, keeping their order.
func byContext(l *v1alpha1.RolloutPlanList) map[string][]v1alpha1.RolloutPlan {
	out := map[string][]v1alpha1.RolloutPlan{}
	for _, p := range l.Items {
		out[p.Context] = append(out[p.Context], p)
	}
	return out
}

// withoutContext returns the plans with Context cleared, sorted by namespace/name.
func withoutContext(ps []v1alpha1.RolloutPlan) []v1alpha1.RolloutPlan {
	out := slices.Clone(ps)
	for i := range out {
		out[i].Context = ""
	}
	slices.SortFunc(out, func(a, b v1alpha1.RolloutPlan) int {
		return strings.Compare(a.Deployment.Namespace+"/"+a.Deployment.Name, b.Deployment.Namespace+"/"+b.Deployment.Name)
	})
	return out
}

// setupTwoStates gives the namespace Deployments web and api in both clusters with different
// live state: on main (rolled out by the controller) web 4 x nginx:1.18 maxSurge 1
// maxUnavailable 0, api 2 x nginx:1.18; on second (settled by hand) web 10 x nginx:1.17 with
// the default 25%/25%, api 3 x nginx:1.16 Recreate. It returns each cluster's replicas of web.
func (f *contextsFixture) setupTwoStates(t *testing.T) map[string]int32 {
	t.Helper()
	f.c.CreateDeployment(t, f.ns, framework.NewDeployment("web").Replicas(4).Image("nginx:1.18").RollingUpdate("1", "0"))
	f.c.CreateDeployment(t, f.ns, framework.NewDeployment("api").Replicas(2).Image("nginx:1.18"))
	f.second.CreateSettled(t, f.ns, framework.NewDeployment("web").Replicas(10).Image("nginx:1.17"))
	f.second.CreateSettled(t, f.ns, framework.NewDeployment("api").Replicas(3).Image("nginx:1.16").Recreate())
	f.c.WaitForRollout(t, f.ns, "web", time.Minute)
	f.c.WaitForRollout(t, f.ns, "api", time.Minute)
	return map[string]int32{ctxMain: 4, ctxSecond: 10}
}

// checkAcross runs preview args across main and second, then in each context alone, and
// checks that each context's plans are the ones its single-context preview makes, that each
// plan carries its context, and that the two clusters' plans differ (web's replicas).
func (f *contextsFixture) checkAcross(t *testing.T, webReplicas map[string]int32, args ...string) {
	t.Helper()
	across, _ := f.previewJSON(t, 0, append([]string{"--contexts", ctxMain + "," + ctxSecond}, args...)...)
	got := byContext(across)
	if keys := slices.Sorted(maps.Keys(got)); !slices.Equal(keys, []string{ctxMain, ctxSecond}) {
		t.Fatalf("plans' contexts: %q, want [main second] (each item carries its context)", keys)
	}
	for _, ctx := range []string{ctxMain, ctxSecond} {
		alone, _ := f.previewJSON(t, 0, append([]string{"--context", ctx}, args...)...)
		for _, p := range alone.Items {
			if p.Context != "" {
				t.Errorf("--context %s alone: plan %s carries context %q, want none (one context prints as before)", ctx, p.Deployment.Name, p.Context)
			}
		}
		if diff := cmp.Diff(withoutContext(alone.Items), withoutContext(got[ctx])); diff != "" {
			t.Errorf("context %s: plans across contexts differ from the preview of %s alone (-alone +across):\n%s", ctx, ctx, diff)
		}
		for _, p := range got[ctx] {
			if p.Deployment.Name == "web" && p.Deployment.Replicas != webReplicas[ctx] {
				t.Errorf("context %s: web planned with %d replicas, want %d (that cluster's)", ctx, p.Deployment.Replicas, webReplicas[ctx])
			}
		}
	}
	if cmp.Equal(withoutContext(got[ctxMain]), withoutContext(got[ctxSecond])) {
		t.Errorf("main and second got the same plans, though their live state differs")
	}
}

// TestContextsPreview previews a manifest set and a live selection across the two clusters:
// each context's plans are those of a preview of that context alone.
func TestContextsPreview(t *testing.T) {
	t.Parallel()
	f := newContextsFixture(t)
	webReplicas := f.setupTwoStates(t)

	t.Run("manifest set", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		// No replicas in the manifests: each cluster keeps its own.
		writeManifests(t, dir, map[string]string{
			"web.yaml": `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: app, image: "nginx:1.20"}]}
`,
			"api.yaml": `apiVersion: apps/v1
kind: Deployment
metadata: {name: api}
spec:
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec: {containers: [{name: app, image: "nginx:1.20"}]}
`,
		})
		f.checkAcross(t, webReplicas, "-f", dir)
	})
	t.Run("live selection", func(t *testing.T) {
		t.Parallel()
		f.checkAcross(t, webReplicas, "--all", "--image", "*=nginx:1.21")
	})
	t.Run("summary table", func(t *testing.T) {
		t.Parallel()
		res := f.plugin(t, "preview", "-n", f.ns, "--all", "--summary", "--image", "*=nginx:1.21", "--contexts", ctxSecond+","+ctxMain)
		if res.ExitCode != 0 {
			t.Fatalf("preview --summary across contexts: exit %d\n%s%s", res.ExitCode, res.Stdout, res.Stderr)
		}
		lines := strings.Split(strings.TrimSpace(res.Stdout), "\n")
		if len(lines) != 5 || !strings.HasPrefix(lines[0], "CONTEXT") {
			t.Fatalf("summary across two contexts: want a header starting with CONTEXT and 4 rows (2 Deployments x 2 contexts), got:\n%s", res.Stdout)
		}
		var order []string
		for _, l := range lines[1:] {
			order = append(order, strings.Fields(l)[0])
		}
		if !slices.Equal(order, []string{ctxSecond, ctxSecond, ctxMain, ctxMain}) {
			t.Errorf("rows' contexts %q, want second's then main's (the order of --contexts)\n%s", order, res.Stdout)
		}
		single := f.plugin(t, "preview", "-n", f.ns, "--all", "--summary", "--image", "*=nginx:1.21", "--context", ctxMain)
		if strings.Contains(single.Stdout, "CONTEXT") {
			t.Errorf("one context: the table has a CONTEXT column, want it as before:\n%s", single.Stdout)
		}
	})
}

// TestContextsUnreachable previews across main, down (nothing listens) and second: the good
// contexts are planned and printed, down gets one line naming it, and the exit code is 1.
func TestContextsUnreachable(t *testing.T) {
	t.Parallel()
	f := newContextsFixture(t)
	f.c.CreateDeployment(t, f.ns, framework.NewDeployment("web").Replicas(2))
	f.second.CreateSettled(t, f.ns, framework.NewDeployment("web").Replicas(5))
	f.c.WaitForRollout(t, f.ns, "web", time.Minute)

	began := time.Now()
	l, res := f.previewJSON(t, 1, "--all", "--image", "*=nginx:1.21", "--contexts", strings.Join([]string{ctxMain, ctxDown, ctxSecond}, ","))
	took := time.Since(began)
	got := byContext(l)
	for ctx, replicas := range map[string]int32{ctxMain: 2, ctxSecond: 5} {
		if len(got[ctx]) != 1 || got[ctx][0].Deployment.Replicas != replicas {
			t.Errorf("context %s: plans %+v, want web with %d replicas", ctx, got[ctx], replicas)
		}
	}
	if len(got[ctxDown]) != 0 {
		t.Errorf("unreachable context down got %d plans", len(got[ctxDown]))
	}
	var naming []string
	for _, line := range strings.Split(res.Stderr, "\n") {
		if strings.Contains(line, ctxDown) {
			naming = append(naming, line)
		}
	}
	if len(naming) != 1 || strings.Contains(res.Stderr, "goroutine ") {
		t.Errorf("stderr: want exactly one line naming context %q and its reason, got:\n%s", ctxDown, res.Stderr)
	}
	t.Logf("preview across 3 contexts, one unreachable: %s; stderr: %s", took.Round(time.Millisecond), strings.TrimSpace(res.Stderr))

	// --all-contexts: every context of the kubeconfig, sorted (down, main, second).
	all, res := f.previewJSON(t, 1, "--all", "--image", "*=nginx:1.21", "--all-contexts")
	var order []string
	for _, p := range all.Items {
		order = append(order, p.Context)
	}
	if !slices.Equal(order, []string{ctxMain, ctxSecond}) {
		t.Errorf("--all-contexts: plans' contexts %q, want [main second]", order)
	}
	if n := strings.Count(res.Stderr, "context "+ctxDown); n != 1 {
		t.Errorf("--all-contexts: stderr names context down %d times, want once:\n%s", n, res.Stderr)
	}
}

// TestContextsUnknown names a context the kubeconfig lacks: refused before any request (none
// in the -v=6 log), naming the kubeconfig's contexts, nothing on stdout.
func TestContextsUnknown(t *testing.T) {
	t.Parallel()
	f := newContextsFixture(t)
	res := f.plugin(t, "preview", "-n", f.ns, "--all", "--contexts", ctxMain+",nope", "-v=6")
	if res.ExitCode == 0 {
		t.Fatalf("preview --contexts main,nope: exit 0, want a refusal\n%s", res.Stdout)
	}
	if res.Stdout != "" {
		t.Errorf("stdout: want nothing, got:\n%s", res.Stdout)
	}
	if reqs := requests(res.Stderr); len(reqs) != 0 {
		t.Errorf("an unknown context must be refused before any request; sent: %q", reqs)
	}
	var msg []string
	for _, line := range strings.Split(strings.TrimSpace(res.Stderr), "\n") {
		if strings.Contains(line, "nope") {
			msg = append(msg, line)
		}
	}
	if len(msg) != 1 {
		t.Fatalf("stderr: want one line naming context nope, got:\n%s", res.Stderr)
	}
	for _, known := range []string{ctxMain, ctxSecond, ctxDown} {
		if !strings.Contains(msg[0], known) {
			t.Errorf("the refusal does not name the kubeconfig's context %s: %s", known, msg[0])
		}
	}
}

// TestContextsWriteRefused runs writing verbs with two contexts: each is refused in one line
// and neither cluster's Deployment changes.
func TestContextsWriteRefused(t *testing.T) {
	t.Parallel()
	f := newContextsFixture(t)
	f.c.CreateDeployment(t, f.ns, framework.NewDeployment("web").Replicas(1))
	f.second.CreateSettled(t, f.ns, framework.NewDeployment("web").Replicas(1))
	f.c.WaitForRollout(t, f.ns, "web", time.Minute)
	before := map[string]int64{}
	for ctx, get := range f.getters() {
		before[ctx] = get(t)
	}
	for _, verb := range [][]string{{"restart", "web", "--yes"}, {"pause", "web"}, {"undo", "web"}} {
		res := f.plugin(t, append(verb, "-n", f.ns, "--contexts", ctxMain+","+ctxSecond)...)
		lines := strings.Split(strings.TrimSpace(res.Stderr), "\n")
		if res.ExitCode == 0 || len(lines) != 1 || !strings.Contains(lines[0], "--contexts") {
			t.Errorf("%s with two contexts: exit %d, want a refusal in one line naming --contexts\nstdout: %s\nstderr: %s",
				verb[0], res.ExitCode, res.Stdout, res.Stderr)
		}
	}
	for ctx, get := range f.getters() {
		if after := get(t); after != before[ctx] {
			t.Errorf("context %s: web changed (generation %d -> %d)", ctx, before[ctx], after)
		}
	}
}

// getters returns, per context, a function giving web's metadata.generation there (any
// write of restart, pause or undo changes the spec).
func (f *contextsFixture) getters() map[string]func(*testing.T) int64 {
	return map[string]func(*testing.T) int64{
		ctxMain: func(t *testing.T) int64 {
			d, err := f.c.Client.AppsV1().Deployments(f.ns).Get(t.Context(), "web", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			return d.Generation
		},
		ctxSecond: func(t *testing.T) int64 {
			d, err := f.second.Client.AppsV1().Deployments(f.ns).Get(t.Context(), "web", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			return d.Generation
		},
	}
}

// TestContextsReadVerbs runs status, drive status and reload (no --yes: it only shows)
// across main, down and second with -o json: each lists web of main and of second, each
// item carrying its context and that cluster's replicas; down is one stderr line; exit 1;
// reload wrote nothing.
func TestContextsReadVerbs(t *testing.T) {
	t.Parallel()
	f := newContextsFixture(t)
	f.c.CreateDeployment(t, f.ns, framework.NewDeployment("web").Replicas(2))
	f.second.CreateSettled(t, f.ns, framework.NewDeployment("web").Replicas(5))
	f.c.WaitForRollout(t, f.ns, "web", time.Minute)
	before := map[string]int64{}
	for ctx, get := range f.getters() {
		before[ctx] = get(t)
	}
	contexts := strings.Join([]string{ctxMain, ctxDown, ctxSecond}, ",")
	type item struct {
		Context    string
		Name       string // DriveStatus
		Deployment struct {
			Name     string
			Replicas int32
		}
	}
	t.Run("verbs", func(t *testing.T) { // returns once its parallel subtests are done
		for _, verb := range [][]string{{"status", "--all"}, {"drive", "status", "--all"}, {"reload", "deploy/web"}} {
			t.Run(verb[0]+"-"+verb[len(verb)-1], func(t *testing.T) {
				t.Parallel()
				res := f.plugin(t, append(verb, "-n", f.ns, "-o", "json", "--contexts", contexts)...)
				if res.ExitCode != 1 || strings.Count(res.Stderr, "context "+ctxDown) != 1 || strings.Contains(res.Stderr, "goroutine ") {
					t.Fatalf("%v: exit %d, want 1 and one line naming context down\nstdout: %s\nstderr: %s", verb, res.ExitCode, res.Stdout, res.Stderr)
				}
				var l struct{ Items []item }
				if err := json.Unmarshal([]byte(res.Stdout), &l); err != nil {
					t.Fatalf("%v: decode: %v\n%s", verb, err, res.Stdout)
				}
				var got []string
				for _, it := range l.Items {
					name := it.Deployment.Name + it.Name
					got = append(got, it.Context+"/"+name)
					want := map[string]int32{ctxMain: 2, ctxSecond: 5}[it.Context]
					if verb[0] != "drive" && it.Deployment.Replicas != want {
						t.Errorf("%v: context %s: web with %d replicas, want %d (that cluster's)", verb, it.Context, it.Deployment.Replicas, want)
					}
				}
				if !slices.Equal(got, []string{ctxMain + "/web", ctxSecond + "/web"}) {
					t.Errorf("%v: items %q, want main/web then second/web", verb, got)
				}
			})
		}
	})
	for ctx, get := range f.getters() {
		if after := get(t); after != before[ctx] {
			t.Errorf("context %s: web changed (generation %d -> %d): reload across contexts must not write", ctx, before[ctx], after)
		}
	}
}
