package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	typedappsv1 "k8s.io/client-go/kubernetes/typed/apps/v1"
	k8stesting "k8s.io/client-go/testing"
	"sigs.k8s.io/yaml"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// fleetObjects: in namespace shop, web (4 replicas) is mid-rollout from nginx:1.18 to 1.19
// (2 old, 2 new pods), api (2 replicas) is settled, both labelled tier=front; db (3
// replicas, tier=back) is settled. Namespace bank holds a settled ledger.
func fleetObjects() []runtime.Object {
	web := testutil.Deployment("web").Namespace("shop").Label("tier", "front").Replicas(4).Image("nginx:1.19").Revision(2).Build()
	webOld := testutil.ReplicaSetFor(testutil.Deployment("web").Namespace("shop").Label("tier", "front").Replicas(4).Build()).OwnedBy(web).Created(1).Replicas(2).Revision(1).Build()
	webNew := testutil.ReplicaSetFor(web).Created(2).Replicas(2).Build()
	api := testutil.Deployment("api").Namespace("shop").Label("tier", "front").Replicas(2).Build()
	db := testutil.Deployment("db").Namespace("shop").Label("tier", "back").Replicas(3).Build()
	ledger := testutil.Deployment("ledger").Namespace("bank").Replicas(1).Build()
	return []runtime.Object{web, webOld, webNew, api, testutil.ReplicaSetFor(api).Build(), db, testutil.ReplicaSetFor(db).Build(), ledger, testutil.ReplicaSetFor(ledger).Build()}
}

// fleetStateFile writes fleetObjects as `kubectl get deploy,rs -o yaml` would (a v1 List).
func fleetStateFile(t *testing.T) string {
	var items []any
	for _, o := range fleetObjects() {
		items = append(items, o)
	}
	b, err := yaml.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "fleet.yaml")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPreviewFleetNames(t *testing.T) {
	sf := fleetStateFile(t)
	out, errOut, code := runRoot(t, "", "preview", "web", "api", "-n", "shop", "--state-file", sf)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	testutil.Golden(t, "preview-fleet-names", []byte(out))

	out, errOut, code = runRoot(t, "", "preview", "deploy/web", "deploy/api", "-n", "shop", "--state-file", sf, "--summary")
	if code != ExitOK || strings.Count(out, "\n") != 3 || strings.Contains(out, "STEP") {
		t.Errorf("--summary: exit %d, %q, %q", code, out, errOut)
	}

	// One name prints as today, also with the many-Deployment flags registered.
	one, _, code := runRoot(t, "", "preview", "web", "-n", "shop", "--state-file", sf)
	if code != ExitOK || !strings.HasPrefix(one, "Deployment:     shop/web, 4 replicas") {
		t.Errorf("one Deployment: exit %d:\n%s", code, one)
	}
	row, _, _ := runRoot(t, "", "preview", "web", "-n", "shop", "--state-file", sf, "--summary")
	if lines := strings.Split(strings.TrimSpace(row), "\n"); len(lines) != 2 || !strings.HasPrefix(lines[1], "shop        web          rollout in flight") {
		t.Errorf("one Deployment --summary:\n%s", row)
	}
}

func TestPreviewFleetJSON(t *testing.T) {
	sf := fleetStateFile(t)
	out, errOut, code := runRoot(t, "", "preview", "web", "api", "db", "-n", "shop", "--state-file", sf, "-o", "json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var l v1alpha1.RolloutPlanList
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range l.Items {
		got = append(got, p.Kind+" "+p.Deployment.Name+" "+p.Outcome)
	}
	if d := cmp.Diff([]string{"RolloutPlan web Complete", "RolloutPlan api NoChange", "RolloutPlan db NoChange"}, got); d != "" || l.Kind != "RolloutPlanList" {
		t.Errorf("kind %s (-want +got):\n%s", l.Kind, d)
	}
	// The item of web is exactly the RolloutPlan that `preview web -o json` prints.
	one, _, _ := runRoot(t, "", "preview", "web", "-n", "shop", "--state-file", sf, "-o", "json")
	var single, item map[string]any
	_ = json.Unmarshal([]byte(one), &single)
	var whole map[string]any
	_ = json.Unmarshal([]byte(out), &whole)
	item = whole["items"].([]any)[0].(map[string]any)
	if d := cmp.Diff(single, item); d != "" {
		t.Errorf("list item differs from the single plan (-single +item):\n%s", d)
	}
}

func TestPreviewFleetExitCodes(t *testing.T) {
	sf := fleetStateFile(t)
	// A missing Deployment: the others are printed, its error names it, exit 1.
	out, errOut, code := runRoot(t, "", "preview", "web", "gone", "api", "-n", "shop", "--state-file", sf)
	if code != ExitError {
		t.Errorf("exit %d, want %d", code, ExitError)
	}
	if !strings.Contains(out, "shop        gone         -") || strings.Count(out, "Deployment:     shop/") != 2 {
		t.Errorf("stdout:\n%s", out)
	}
	wantErr := []string{`error: deployment.apps/gone: deployments.apps "gone" not found in namespace "shop" in ` + sf, "error: 1 Deployment(s) failed: deployment.apps/gone"}
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], wantErr[0]) || lines[1] != wantErr[1] {
		t.Errorf("stderr:\n%s\nwant lines starting\n%s", errOut, strings.Join(wantErr, "\n"))
	}
	// --fail-on-stall: any stalled plan exits 3 (nothing more on stderr).
	_, errOut, code = runRoot(t, "", "preview", "web", "api", "-n", "shop", "--state-file", sf, "--image", "*=nginx:1.27", "--readiness", "never", "--fail-on-stall", "--summary")
	if code != ExitStalled || errOut != "" {
		t.Errorf("--fail-on-stall: exit %d, stderr %q", code, errOut)
	}
	_, _, code = runRoot(t, "", "preview", "web", "api", "-n", "shop", "--state-file", sf, "--fail-on-stall", "--summary")
	if code != ExitOK {
		t.Errorf("no stall: exit %d", code)
	}
	// A failure wins over a stall.
	_, _, code = runRoot(t, "", "preview", "web", "gone", "-n", "shop", "--state-file", sf, "--readiness", "never", "--image", "*=x:1", "--fail-on-stall")
	if code != ExitError {
		t.Errorf("failure and stall: exit %d, want 1", code)
	}
	// A change that does not apply to one of them (no container "web" in api) fails that one.
	out, errOut, code = runRoot(t, "", "preview", "web", "api", "-n", "shop", "--state-file", sf, "--image", "web=nginx:1.27", "--summary")
	if code != ExitError || !strings.Contains(errOut, "error: deployment.apps/api: ") || !strings.Contains(out, "image web=nginx:1.27") {
		t.Errorf("exit %d\n%s\n%s", code, out, errOut)
	}
}

func TestFleetExit(t *testing.T) {
	for _, tc := range []struct {
		failed      []string
		stalled     int
		failOnStall bool
		want        int
		msg         string
	}{
		{want: ExitOK},
		{stalled: 2, want: ExitOK},
		{stalled: 2, failOnStall: true, want: ExitStalled},
		{failed: []string{"shop/a", "bank/b"}, want: ExitError, msg: "2 Deployment(s) failed: shop/a, bank/b"},
		{failed: []string{"shop/a"}, stalled: 1, failOnStall: true, want: ExitError, msg: "1 Deployment(s) failed: shop/a"},
	} {
		err := fleetExit(tc.failed, tc.stalled, tc.failOnStall)
		code := ExitOK
		var msg string
		if err != nil {
			var b strings.Builder
			code = HandleError(&b, err)
			msg = strings.TrimPrefix(strings.TrimSpace(b.String()), "error: ")
		}
		if code != tc.want || msg != tc.msg {
			t.Errorf("%+v: exit %d %q", tc, code, msg)
		}
	}
}

func TestPreviewFleetBadInput(t *testing.T) {
	sf := fleetStateFile(t)
	kc := kubeconfig(t, "http://127.0.0.1:1")
	for _, tc := range []struct {
		args    []string
		wantErr string
	}{
		{[]string{"web", "api", "-f", "x.yaml", "--state-file", sf}, "error: -f/-k give the Deployments of a manifest set: they do not go with several names, -l, --all or -A"},
		{[]string{"-A", "--image", "*=x:1"}, "error: -A/--all-namespaces previews the rollouts in flight: drop the change flag"},
		{[]string{"web", "api", "--summary", "-o", "json", "--state-file", sf}, "error: --summary prints the human table: drop -o"},
		{[]string{"web", "-l", "app=web"}, "error: name cannot be provided when a selector is specified"},
		{[]string{"-l", "app=web", "--all"}, "error: setting 'all' parameter but found a non empty selector"},
		{[]string{"--state-file", sf}, "error: a Deployment is required: give deploy/NAME (or NAME), several names, -l/--selector, --all or -A"},
	} {
		_, errOut, code := runRoot(t, "", append([]string{"preview", "--kubeconfig", kc}, tc.args...)...)
		if code != ExitError || !strings.HasPrefix(errOut, tc.wantErr) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: exit %d, %q; want one line starting %q", tc.args, code, errOut, tc.wantErr)
		}
	}
}

// TestPreviewFleetLive: -l, --all and -A read with one LIST of Deployments and one of
// ReplicaSets, whatever their number, and plan each.
func TestPreviewFleetLive(t *testing.T) {
	for _, tc := range []struct {
		name string
		sel  target.Selection
		want []string
	}{
		{"-l", target.Selection{Selector: "tier=front", Namespace: "shop"}, []string{"shop/api NoChange", "shop/web Complete"}},
		{"--all", target.Selection{All: true, Namespace: "shop"}, []string{"shop/api NoChange", "shop/db NoChange", "shop/web Complete"}},
		{"-A", target.Selection{AllNamespaces: true}, []string{"bank/ledger NoChange", "shop/api NoChange", "shop/db NoChange", "shop/web Complete"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := fake.NewClientset(fleetObjects()...)
			streams, out, errOut := testStreams()
			o := NewPreviewOptions(streams)
			o.Output.Output = "json"
			o.Checks = "none" // the feasibility reads: TestPreviewFeasibilityReads
			tc.sel.Many, tc.sel.ChunkSize = true, 500
			o.Fleet.Selection, o.Fleet.Client = &tc.sel, clientOf(c)
			if err := o.Validate(); err != nil {
				t.Fatal(err)
			}
			if err := o.Run(context.Background()); err != nil {
				t.Fatalf("%v: %s", err, errOut)
			}
			var l v1alpha1.RolloutPlanList
			if err := json.Unmarshal(out.Bytes(), &l); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range l.Items {
				got = append(got, p.Deployment.Namespace+"/"+p.Deployment.Name+" "+p.Outcome)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			var verbs []string
			for _, a := range c.Actions() {
				verbs = append(verbs, a.GetVerb()+" "+a.GetResource().Resource+" "+a.GetNamespace())
			}
			ns := tc.sel.Scope().Namespace
			if d := cmp.Diff([]string{"list deployments " + ns, "list replicasets " + ns}, verbs); d != "" {
				t.Errorf("requests (-want +got):\n%s", d)
			}
		})
	}
}

// The many-Deployment path is not taken for one name.
func TestPreviewOneNameIsNotFleet(t *testing.T) {
	streams, _, _ := testStreams()
	o := NewPreviewOptions(streams)
	o.Fleet.Selection = &target.Selection{Many: true, Args: []string{"deploy/web"}}
	if o.Fleet.many() {
		t.Error("deploy/web is many")
	}
	o.Fleet.Selection.Args = []string{"web", "web"}
	if !o.Fleet.many() {
		t.Error("web web is one")
	}
}

// TestPreviewFleetDryRunsConcurrent: a preview with a change flag over many live Deployments
// sends their server-side dry runs concurrently (manifest.Each): api's dry run goes on only
// once web's has started, though api comes first. The plans keep the selection's order, and
// db, whose dry run fails, is named on stderr while the others are planned.
func TestPreviewFleetDryRunsConcurrent(t *testing.T) {
	c := fake.NewClientset(fleetObjects()...)
	// The fake answers one request at a time (a lock around its reactors), so the wait is in
	// front of it, in the client: dryRunHook.
	webStarted := make(chan struct{})
	var once sync.Once
	hook := func(name string) error {
		switch name {
		case "api":
			select {
			case <-webStarted:
			case <-time.After(20 * time.Second):
				return errors.New("api's dry run was alone in flight: the dry runs are sent one after another")
			}
		case "web":
			once.Do(func() { close(webStarted) })
		}
		return nil
	}
	echo := func(a k8stesting.Action) (bool, runtime.Object, error) {
		obj := a.(interface{ GetObject() runtime.Object }).GetObject().(*appsv1.Deployment)
		if obj.Name == "db" {
			return true, nil, apierrors.NewBadRequest("admission webhook denied the request")
		}
		return true, obj.DeepCopy(), nil // the server's answer to a dry run: the object sent
	}
	c.PrependReactor("create", "deployments", echo)
	c.PrependReactor("update", "deployments", echo)
	streams, out, errOut := testStreams()
	o := NewPreviewOptions(streams)
	o.Output.Output = "json"
	o.Change.Images = []string{"*=nginx:1.27"}
	o.Fleet.Selection = &target.Selection{Many: true, All: true, Namespace: "shop", ChunkSize: 500}
	o.Fleet.Client = clientOf(dryRunHook{c, hook})
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	code, msg := exit(o.Run)
	if code != ExitError || msg != "error: 1 Deployment(s) failed: deployment.apps/db\n" {
		t.Errorf("exit %d %q, want 1 naming db", code, msg)
	}
	if !strings.HasPrefix(errOut.String(), "error: deployment.apps/db: ") || !strings.Contains(errOut.String(), "admission webhook denied the request") || strings.Count(errOut.String(), "\n") != 1 {
		t.Errorf("stderr %q, want one line naming db and why", errOut)
	}
	var l v1alpha1.RolloutPlanList
	if err := json.Unmarshal(out.Bytes(), &l); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range l.Items {
		got = append(got, p.Deployment.Name+" "+p.Outcome)
	}
	if d := cmp.Diff([]string{"api Complete", "web Complete"}, got); d != "" {
		t.Errorf("plans (-want +got):\n%s", d)
	}
}

// dryRunHook is a clientset whose Deployment creates and updates call hook with the
// Deployment's name before the fake answers; an error from hook is the answer.
type dryRunHook struct {
	*fake.Clientset
	hook func(name string) error
}

func (c dryRunHook) AppsV1() typedappsv1.AppsV1Interface {
	return hookedApps{c.Clientset.AppsV1(), c.hook}
}

type hookedApps struct {
	typedappsv1.AppsV1Interface
	hook func(name string) error
}

func (a hookedApps) Deployments(namespace string) typedappsv1.DeploymentInterface {
	return hookedDeployments{a.AppsV1Interface.Deployments(namespace), a.hook}
}

type hookedDeployments struct {
	typedappsv1.DeploymentInterface
	hook func(name string) error
}

func (d hookedDeployments) Create(ctx context.Context, dep *appsv1.Deployment, opts metav1.CreateOptions) (*appsv1.Deployment, error) {
	if err := d.hook(dep.Name); err != nil {
		return nil, err
	}
	return d.DeploymentInterface.Create(ctx, dep, opts)
}

func (d hookedDeployments) Update(ctx context.Context, dep *appsv1.Deployment, opts metav1.UpdateOptions) (*appsv1.Deployment, error) {
	if err := d.hook(dep.Name); err != nil {
		return nil, err
	}
	return d.DeploymentInterface.Update(ctx, dep, opts)
}
