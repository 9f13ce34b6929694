package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
)

// webManifest is examples/state.yaml's shop/web with another image.
const webManifest = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 10
  selector: {matchLabels: {app: web}}
  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 25%, maxUnavailable: 25%}}
  revisionHistoryLimit: 2
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: nginx, image: "nginx:1.27"}]}
`

// apiManifest is the live shop/api of manyStateFile, unchanged.
const apiManifest = `apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: shop}
spec:
  replicas: 2
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec: {containers: [{name: api, image: "nginx:1.18"}]}
`

const freshManifest = `apiVersion: apps/v1
kind: Deployment
metadata: {name: fresh}
spec:
  replicas: 3
  selector: {matchLabels: {app: fresh}}
  template:
    metadata: {labels: {app: fresh}}
    spec: {containers: [{name: app, image: "fresh:1"}]}
`

// manyStateFile writes a state file of two Deployments: examples/state.yaml's shop/web and
// shop/api, rolled out (one ReplicaSet, every pod available).
func manyStateFile(t *testing.T) string {
	t.Helper()
	example, err := os.ReadFile(stateFile)
	if err != nil {
		t.Fatal(err)
	}
	api := testutil.Deployment("api").Namespace("shop").Replicas(2).Status(2, 2, 2, 2).Build()
	var docs []string
	for _, obj := range []any{api, testutil.ReplicaSetFor(api).Build()} {
		b, err := yaml.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(b))
	}
	p := filepath.Join(t.TempDir(), "state.yaml")
	if err := os.WriteFile(p, []byte(string(example)+"\n---\n"+strings.Join(docs, "---\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// planRow is what the manifest-set tests compare of each plan.
type planRow struct{ Deployment, Source, Change, Outcome string }

func planRows(t *testing.T, out, dir string) []planRow {
	t.Helper()
	var l v1alpha1.RolloutPlanList
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatalf("decode %q: %v", out, err)
	}
	if l.Kind != "RolloutPlanList" {
		t.Errorf("kind %q, want RolloutPlanList", l.Kind)
	}
	var rows []planRow
	for _, p := range l.Items {
		r := planRow{Deployment: p.Deployment.Namespace + "/" + p.Deployment.Name, Outcome: p.Outcome}
		if p.Manifest != nil {
			r.Source, r.Change = strings.TrimPrefix(p.Manifest.Source, dir+"/"), p.Manifest.Change
		}
		rows = append(rows, r)
	}
	return rows
}

// TestPreviewManifestSetOffline: a directory of manifests against a state file of several
// Deployments: each Deployment planned (update, NoChange, create), other kinds skipped, a
// broken file named on stderr with exit 1.
func TestPreviewManifestSetOffline(t *testing.T) {
	state := manyStateFile(t)
	dir := t.TempDir()
	writeFile(t, dir, "a-web.yaml", webManifest)
	writeFile(t, dir, "b-api.yaml", apiManifest+"---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {a: b}\n")
	writeFile(t, dir, "c-fresh.yaml", freshManifest)
	want := []planRow{
		{"shop/web", "a-web.yaml", "Update", "Complete"},
		{"shop/api", "b-api.yaml", "NoChange", "NoChange"},
		{"shop/fresh", "c-fresh.yaml", "Create", "Complete"},
	}
	out, errOut, code := runRoot(t, "", "preview", "-n", "shop", "-f", dir, "--state-file", state, "-o", "json")
	if code != ExitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if d := cmp.Diff(want, planRows(t, out, dir)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}

	human, _, code := runRoot(t, "", "preview", "-n", "shop", "-f", dir, "--state-file", state)
	if code != ExitOK {
		t.Fatalf("human: exit %d", code)
	}
	lines := strings.Split(human, "\n")
	var table []string
	for _, l := range lines[:4] {
		table = append(table, strings.Join(strings.Fields(l), " "))
	}
	wantTable := []string{
		"NAMESPACE DEPLOYMENT CHANGE NEW REPLICASET WRITES PEAK PODS MIN AVAILABLE OUTCOME SOURCE",
		"shop web update web-7d876db474 (4) 6 13 8 Complete " + dir + "/a-web.yaml",
		"shop api none api-" + strings.Fields(lines[2])[3][4:] + " (1) 0 2 2 NoChange " + dir + "/b-api.yaml",
		"shop fresh create fresh-" + strings.Fields(lines[3])[3][6:] + " (1) 1 3 0 Complete " + dir + "/c-fresh.yaml",
	}
	if d := cmp.Diff(wantTable, table); d != "" {
		t.Errorf("summary (-want +got):\n%s", d)
	}
	if lines[4] != "Also in the set, not planned: 1 ConfigMap" || strings.Count(human, "\nDeployment:     ") != 3 {
		t.Errorf("human: want the other kinds counted under the table, then 3 plans:\n%s", human)
	}

	writeFile(t, dir, "b-broken.yaml", "kind: Deployment\nspec: [\n")
	out, errOut, code = runRoot(t, "", "preview", "-n", "shop", "-f", dir, "--state-file", state, "-o", "json")
	if code != ExitError {
		t.Errorf("broken file: exit %d, want %d", code, ExitError)
	}
	if d := cmp.Diff(want, planRows(t, out, dir)); d != "" {
		t.Errorf("broken file: the good ones (-want +got):\n%s", d)
	}
	if lines := strings.Split(strings.TrimSpace(errOut), "\n"); len(lines) != 2 || !strings.HasPrefix(lines[0], "error: error parsing "+dir+"/b-broken.yaml: ") ||
		lines[1] != "error: 1 file(s) could not be read" {
		t.Errorf("broken file: stderr %q, want a line naming b-broken.yaml and the reason, then the count", errOut)
	}
}

// TestPreviewManifestStdin: `helm template . | kubectl rollplan preview [NAME] -f -` with two
// Deployments: with a name, that one (as before); without, both.
func TestPreviewManifestStdin(t *testing.T) {
	state := manyStateFile(t)
	stream := webManifest + "---\n" + apiManifest
	named, errOut, code := runRoot(t, stream, "preview", "api", "-f", "-", "--state-file", state)
	if code != ExitOK {
		t.Fatalf("named: exit %d: %s", code, errOut)
	}
	if !strings.HasPrefix(named, "Deployment:     shop/api, 2 replicas") || !strings.Contains(named, "Outcome: NoChange") {
		t.Errorf("named: the plan of api as preview prints one:\n%s", named)
	}
	out, errOut, code := runRoot(t, stream, "preview", "-f", "-", "--state-file", state, "-o", "json")
	if code != ExitOK {
		t.Fatalf("unnamed: exit %d: %s", code, errOut)
	}
	want := []planRow{{"shop/web", "STDIN", "Update", "Complete"}, {"shop/api", "STDIN", "NoChange", "NoChange"}}
	if d := cmp.Diff(want, planRows(t, out, "")); d != "" {
		t.Errorf("unnamed (-want +got):\n%s", d)
	}
	_, errOut, code = runRoot(t, stream, "preview", "nope", "-f", "-", "--state-file", state)
	if code != ExitError || !strings.Contains(errOut, `manifest holds Deployment "web", "api", not "nope"`) {
		t.Errorf("unknown name: exit %d, stderr %q", code, errOut)
	}
}

// TestPreviewManifestOneNeedsNoName: a file with exactly one Deployment previews it without
// a name, exactly as with the name.
func TestPreviewManifestOneNeedsNoName(t *testing.T) {
	f := writeFile(t, t.TempDir(), "web.yaml", webManifest+"---\napiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {ports: [{port: 80}]}\n")
	withName, errOut, code := runRoot(t, "", "preview", "deploy/web", "-f", f, "--state-file", stateFile)
	if code != ExitOK {
		t.Fatalf("with a name: exit %d: %s", code, errOut)
	}
	without, errOut, code := runRoot(t, "", "preview", "-f", f, "--state-file", stateFile)
	if code != ExitOK {
		t.Fatalf("without a name: exit %d: %s", code, errOut)
	}
	if withName != without {
		t.Errorf("without a name:\n%s\nwith:\n%s", without, withName)
	}
	if !strings.Contains(without, "New ReplicaSet: web-7d876db474 (revision 4)") {
		t.Errorf("not the plan of the image change:\n%s", without)
	}
	_, errOut, code = runRoot(t, "", "preview", "-f", writeFile(t, t.TempDir(), "svc.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: web}\n"), "--state-file", stateFile)
	if code != ExitError || !strings.Contains(errOut, "manifest holds no Deployment (it holds 1 Service)") {
		t.Errorf("no Deployment: exit %d, stderr %q", code, errOut)
	}
}

// TestPreviewManifestSetFlags: --summary prints the table only; -f/-k refuse a selection.
func TestPreviewManifestSetFlags(t *testing.T) {
	state := manyStateFile(t)
	dir := t.TempDir()
	writeFile(t, dir, "a.yaml", webManifest+"---\n"+apiManifest+"---\napiVersion: v1\nkind: Service\nmetadata: {name: web}\n")
	out, errOut, code := runRoot(t, "", "preview", "-f", dir, "--state-file", state, "--summary")
	if code != ExitOK {
		t.Fatalf("--summary: exit %d: %s", code, errOut)
	}
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 4 || lines[3] != "Also in the set, not planned: 1 Service" {
		t.Errorf("--summary: want the header, 2 rows and the other kinds:\n%s", out)
	}
	for _, args := range [][]string{{"-l", "app=web"}, {"--all"}, {"-A"}, {"web", "api"}} {
		_, errOut, code := runRoot(t, "", append([]string{"preview", "--kubeconfig", kubeconfig(t, "http://127.0.0.1:1"), "-f", dir}, args...)...)
		if code != ExitError || !strings.HasPrefix(errOut, "error: -f/-k give the Deployments of a manifest set: they do not go with several names, -l, --all or -A") {
			t.Errorf("%v: exit %d, %q", args, code, errOut)
		}
	}
}
