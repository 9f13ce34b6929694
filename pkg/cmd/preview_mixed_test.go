package cmd

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/resource"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
)

// mixedWebManifest updates the live web of reloadFixture (a new image; it still reads key A
// of ConfigMap app and Secret db).
const mixedWebManifest = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: app
        image: nginx:1.27
        env: [{name: K, valueFrom: {configMapKeyRef: {name: app, key: A}}}]
        envFrom: [{secretRef: {name: db}}]
`

// mixedConfigManifest changes keys A (read by web, which the set updates) and B (read by
// api, which the set does not hold) of ConfigMap app.
const mixedConfigManifest = `apiVersion: v1
kind: ConfigMap
metadata: {name: app}
data: {A: "3", B: "2"}
`

// TestPreviewManifestSetWithConfig: a set of one Deployment update (web) and one ConfigMap
// whose changed key the live api reads: the set's plan of web and the config restart of api
// both appear (human: a second section; -o json: api appended to the list, marked
// ConfigRestart); web, which also sees a changed key, is planned once, with a note; only dry
// runs are sent; exit 0.
func TestPreviewManifestSetWithConfig(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "web.yaml", mixedWebManifest)
	writeFile(t, dir, "config.yaml", mixedConfigManifest)
	run := func(output string) (string, string, int) {
		c, out, errOut, code, msg := previewConfigSet(t, dir, output)
		// The fake's tracker stores dry runs, so what proves nothing changed is that every
		// write was sent as one.
		lists := map[string]int{}
		for _, a := range c.Actions() {
			if v := a.GetVerb(); v != "get" && v != "list" && v != "watch" && !dryRun(a) {
				t.Errorf("-o %q: a write that is not a dry run: %s %s", output, v, a.GetResource().Resource)
			}
			if a.GetVerb() == "list" {
				lists[a.GetResource().Resource]++
			}
		}
		// The set's plans and its config restarts share one read of the namespace.
		for _, r := range []string{"deployments", "replicasets"} {
			if lists[r] != 1 {
				t.Errorf("-o %q: %d LISTs of %s, want 1 (one read of the namespace for the whole set)", output, lists[r], r)
			}
		}
		return out.String(), errOut.String() + msg, code
	}

	out, errOut, code := run("json")
	if code != ExitOK {
		t.Fatalf("-o json: exit %d: %s", code, errOut)
	}
	var list v1alpha1.RolloutPlanList
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("-o json: %v\n%s", err, out)
	}
	type row struct{ Deployment, Change, Source, Outcome string }
	var got []row
	for _, p := range list.Items {
		r := row{Deployment: p.Deployment.Name, Outcome: p.Outcome}
		if p.Manifest != nil {
			r.Change, r.Source = p.Manifest.Change, strings.TrimPrefix(p.Manifest.Source, dir+"/")
		}
		got = append(got, r)
	}
	want := []row{{"web", "Update", "web.yaml", "Complete"}, {"api", printer.ChangeConfigRestart, "config.yaml", "Complete"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("-o json items (-want +got):\n%s", d)
	}
	wantNote := "Note: deployment default/web: its pods would see a changed key of configmap/app, but the set changes it (Update, " + dir + "/web.yaml): it is planned once, from the set"
	if strings.TrimSpace(errOut) != wantNote {
		t.Errorf("-o json: stderr %q, want the note %q", errOut, wantNote)
	}

	human, errOut, code := run("")
	if code != ExitOK {
		t.Fatalf("human: exit %d: %s", code, errOut)
	}
	section := strings.Index(human, "Config restarts: ")
	if section < 0 || strings.Count(human[:section], "\nDeployment:     ") != 1 || !strings.Contains(human[:section], "web") {
		t.Fatalf("human: want the set's plan of web, then the config-restart section:\n%s", human)
	}
	rest := human[section:]
	for _, w := range []string{"configmap/app (namespace default) would be updated (server-side dry run)", "its pods would see a changed key of configmap/app", "api", wantNote} {
		if !strings.Contains(rest, w) {
			t.Errorf("human: the config section lacks %q:\n%s", w, rest)
		}
	}
	if strings.Count(rest, "\nDeployment:     ") != 1 || strings.Contains(rest, "default/web ") && !strings.Contains(rest, "Note: deployment default/web:") {
		t.Errorf("human: want api's restart plan only in the config section:\n%s", rest)
	}
	if strings.Contains(human, reloadSecretValue) || strings.Contains(errOut, reloadSecretValue) {
		t.Error("the Secret's value was printed")
	}
}

// dryRun reports whether a is a create, update or patch sent with dryRun=All.
func dryRun(a k8stesting.Action) bool {
	switch a := a.(type) {
	case k8stesting.CreateActionImpl:
		return len(a.CreateOptions.DryRun) == 1
	case k8stesting.UpdateActionImpl:
		return len(a.UpdateOptions.DryRun) == 1
	case k8stesting.PatchActionImpl:
		return len(a.PatchOptions.DryRun) == 1
	}
	return false
}

// TestPreviewConfigManifestOutputJSON: `preview -f` of a ConfigMap alone, -o json: a
// RolloutPlanList of the config restarts, in name order (api reads the changed key B, web
// the changed key A), each marked ConfigRestart with reload's config section;
// nothing else on stdout, only dry runs sent.
func TestPreviewConfigManifestOutputJSON(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "config.yaml", mixedConfigManifest)
	c, out, errOut, code, msg := previewConfigSet(t, dir, "json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s %s", code, msg, errOut)
	}
	for _, a := range c.Actions() {
		if v := a.GetVerb(); v != "get" && v != "list" && v != "watch" && !dryRun(a) {
			t.Errorf("a write that is not a dry run: %s %s", v, a.GetResource().Resource)
		}
	}
	var list v1alpha1.RolloutPlanList
	dec := json.NewDecoder(strings.NewReader(out.String()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&list); err != nil || dec.More() {
		t.Fatalf("stdout is not one RolloutPlanList: %v\n%s", err, out)
	}
	var got []string
	for _, p := range list.Items {
		if p.Manifest == nil || p.Config == nil {
			t.Fatalf("%s: manifest %v, config %v; want both", p.Deployment.Name, p.Manifest, p.Config)
		}
		got = append(got, p.Deployment.Name+" "+p.Manifest.Change+" "+p.Config.Decision+" "+p.Config.References[0].State+" "+p.Outcome)
	}
	if want := "api ConfigRestart restart changed Complete,web ConfigRestart restart changed Complete"; strings.Join(got, ",") != want {
		t.Errorf("items %q, want %q", strings.Join(got, ","), want)
	}
	if strings.Contains(out.String()+errOut.String(), reloadSecretValue) {
		t.Error("the Secret's value was printed")
	}
}

// previewConfigSet runs `preview -f dir -n default` (-o output) against reloadFixture's
// cluster (the api and web Deployments reading keys of a ConfigMap) and returns the fake
// clientset with the requests it saw, stdout, stderr, the exit code and the exit message.
func previewConfigSet(t *testing.T, dir, output string) (*fake.Clientset, *bytes.Buffer, *bytes.Buffer, int, string) {
	t.Helper()
	return previewConfigSetIn(t, dir, output, nil)
}

// previewConfigSetIn is previewConfigSet with objects added to the cluster and mutate applied
// to the options.
func previewConfigSetIn(t *testing.T, dir, output string, mutate func(*PreviewOptions), objs ...runtime.Object) (*fake.Clientset, *bytes.Buffer, *bytes.Buffer, int, string) {
	t.Helper()
	c, _ := reloadFixture(t, true)
	for _, obj := range objs {
		if err := c.Tracker().Add(obj); err != nil {
			t.Fatal(err)
		}
	}
	streams, out, errOut := testStreams()
	o := NewPreviewOptions(streams)
	o.Namespace, o.enforceNamespace = testutil.DefaultNamespace, true
	o.Filenames = resource.FilenameOptions{Filenames: []string{dir}}
	o.Client = clientOf(c)
	o.Output.Output = output
	if mutate != nil {
		mutate(o)
	}
	code, msg := exit(o.Run)
	return c, out, errOut, code, msg
}
