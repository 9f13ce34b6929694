//go:build e2e

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// manifestDeployment is a Deployment manifest of name with replicas pods running image.
func manifestDeployment(name string, replicas int, image string) string {
	return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ` + name + `
spec:
  replicas: ` + strconv.Itoa(replicas) + `
  selector: {matchLabels: {app: ` + name + `}}
  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}
  template:
    metadata: {labels: {app: ` + name + `}}
    spec: {containers: [{name: app, image: "` + image + `"}]}
`
}

const manifestExtras = `apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data: {mode: fast}
---
apiVersion: v1
kind: Service
metadata: {name: changed}
spec: {selector: {app: changed}, ports: [{port: 80}]}
`

func writeManifests(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// previewList runs preview -o json with args and decodes the RolloutPlanList; it returns
// the result too (exit code, stderr).
func previewList(t *testing.T, c *framework.Cluster, ns string, args ...string) (*v1alpha1.RolloutPlanList, framework.Result) {
	t.Helper()
	res := c.Plugin(t, append([]string{"preview", "-n", ns, "-o", "json"}, args...)...)
	var l v1alpha1.RolloutPlanList
	if err := json.Unmarshal([]byte(res.Stdout), &l); err != nil {
		t.Fatalf("preview %v: exit %d, decode: %v\nstdout: %s\nstderr: %s", args, res.ExitCode, err, res.Stdout, res.Stderr)
	}
	return &l, res
}

// manifestRow is what TestPreviewManifestSet checks of each plan.
type manifestRow struct {
	Name, Source, Change, Outcome string
	Steps                         []string
	NewRSExists                   bool
}

func manifestRows(l *v1alpha1.RolloutPlanList, dir string) []manifestRow {
	var out []manifestRow
	for _, p := range l.Items {
		r := manifestRow{Name: p.Deployment.Name, Outcome: p.Outcome, Steps: planWrites(&p), NewRSExists: p.NewReplicaSet.Exists}
		if p.Manifest != nil {
			r.Source, r.Change = strings.TrimPrefix(p.Manifest.Source, dir+"/"), p.Manifest.Change
		}
		out = append(out, r)
	}
	return out
}

// TestPreviewManifestSet: a directory with three Deployments (one new, one changed, one
// unchanged) and other objects is planned as create / update / NoChange, with -f DIR and as
// a kustomization (-k), changing nothing; applying it then makes the ReplicaSets the plans
// named. A broken file among the good ones is named on stderr, the others are planned, and
// the exit code is 1.
func TestPreviewManifestSet(t *testing.T) {
	c := framework.Get(t)
	ns := c.Namespace(t)
	live := t.TempDir()
	writeManifests(t, live, map[string]string{
		"changed.yaml": manifestDeployment("changed", 3, "nginx:1.18"),
		"same.yaml":    manifestDeployment("same", 2, "nginx:1.18"),
	})
	if res := c.Kubectl(t, "apply", "-n", ns, "-f", live); res.ExitCode != 0 {
		t.Fatalf("kubectl apply: %s", res.Stderr)
	}
	c.WaitForRollout(t, ns, "changed", time.Minute)
	c.WaitForRollout(t, ns, "same", time.Minute)
	before := resourceVersions(t, c, ns)

	set := map[string]string{
		"changed.yaml": manifestDeployment("changed", 3, "nginx:1.19"),
		"extras.yaml":  manifestExtras,
		"fresh.yaml":   manifestDeployment("fresh", 3, "nginx:1.19"),
		"same.yaml":    manifestDeployment("same", 2, "nginx:1.18"),
	}
	dir, kdir := t.TempDir(), t.TempDir()
	writeManifests(t, dir, set)
	writeManifests(t, kdir, set)
	writeManifests(t, kdir, map[string]string{"kustomization.yaml": "resources: [changed.yaml, extras.yaml, fresh.yaml, same.yaml]\n"})
	list, res := previewList(t, c, ns, "-f", dir)
	if res.ExitCode != 0 {
		t.Fatalf("preview -f: exit %d: %s", res.ExitCode, res.Stderr)
	}
	got := manifestRows(list, dir)
	if len(got) != 3 {
		t.Fatalf("%d plans, want 3: %+v", len(got), got)
	}
	newChanged, newFresh := list.Items[0].NewReplicaSet.Name, list.Items[1].NewReplicaSet.Name
	want := []manifestRow{
		{Name: "changed", Source: "changed.yaml", Change: "Update", Outcome: "Complete", Steps: got[0].Steps},
		{Name: "fresh", Source: "fresh.yaml", Change: "Create", Outcome: "Complete", Steps: []string{"create " + newFresh + " 0->3"}},
		{Name: "same", Source: "same.yaml", Change: "NoChange", Outcome: "NoChange", Steps: []string{}, NewRSExists: true},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("preview -f DIR (-want +got):\n%s", d)
	}
	if len(got[0].Steps) < 2 || !strings.HasPrefix(got[0].Steps[0], "create "+newChanged+" 0->") {
		t.Errorf("changed: steps %v, want the new ReplicaSet %s created first", got[0].Steps, newChanged)
	}

	klist, res := previewList(t, c, ns, "-k", kdir)
	if res.ExitCode != 0 {
		t.Fatalf("preview -k: exit %d: %s", res.ExitCode, res.Stderr)
	}
	for i := range klist.Items {
		if s := klist.Items[i].Manifest.Source; s != kdir {
			t.Errorf("-k: source %q, want the kustomization directory", s)
		}
		klist.Items[i].Manifest.Source = list.Items[i].Manifest.Source
	}
	if d := cmp.Diff(list.Items, klist.Items); d != "" {
		t.Errorf("-k plans differ from -f DIR plans (-f +k):\n%s", d)
	}
	if d := diffMaps(before, resourceVersions(t, c, ns)); d != "" {
		t.Errorf("objects changed by the previews: %s", d)
	}

	broken := t.TempDir()
	for _, f := range []string{"changed.yaml", "fresh.yaml", "same.yaml"} {
		b, _ := os.ReadFile(filepath.Join(dir, f))
		writeManifests(t, broken, map[string]string{f: string(b)})
	}
	writeManifests(t, broken, map[string]string{"broken.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: [x\n"})
	blist, res := previewList(t, c, ns, "-f", broken)
	if res.ExitCode != 1 || len(blist.Items) != 3 {
		t.Errorf("broken file: exit %d, %d plans; want exit 1 and the 3 good Deployments planned", res.ExitCode, len(blist.Items))
	}
	if lines := strings.Split(strings.TrimSpace(res.Stderr), "\n"); len(lines) != 2 || !strings.Contains(lines[0], "broken.yaml") ||
		!strings.Contains(lines[0], "error converting YAML to JSON") || lines[1] != "error: 1 file(s) could not be read" {
		t.Errorf("broken file: stderr %q, want a line naming broken.yaml and the reason, then the count", res.Stderr)
	}

	// Apply the set: the controller makes the ReplicaSets the plans named.
	if res := c.Kubectl(t, "apply", "-n", ns, "-f", dir); res.ExitCode != 0 {
		t.Fatalf("kubectl apply: %s", res.Stderr)
	}
	for i, name := range []string{"changed", "fresh"} {
		c.WaitForRollout(t, ns, name, time.Minute)
		checkNewReplicaSet(t, c, ns, name, &list.Items[i])
	}
}
