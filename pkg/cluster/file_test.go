package cluster

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
)

// toYAML renders objects as a multi-document YAML stream.
func toYAML(t *testing.T, objs ...any) string {
	t.Helper()
	var docs []string
	for _, o := range objs {
		b, err := yaml.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(b))
	}
	return strings.Join(docs, "---\n")
}

func sampleJSON(t *testing.T) string {
	t.Helper()
	js, err := yaml.YAMLToJSON(sampleYAML(t))
	if err != nil {
		t.Fatal(err)
	}
	return string(js)
}

func TestLoadReaderFormats(t *testing.T) {
	d := testutil.Deployment("web").Replicas(4).Revision(2).Build()
	old := testutil.ReplicaSetFor(d).Image("nginx:1.17").Revision(1).Replicas(0).Created(1).Build()
	cur := testutil.ReplicaSetFor(d).Revision(2).Replicas(4).Created(2).Build()
	api := testutil.Deployment("api").Build()
	prod := testutil.Deployment("web").Namespace("prod").Replicas(7).Build()
	svc := map[string]any{"apiVersion": "v1", "kind": "Service", "metadata": map[string]any{"name": "web", "namespace": "default"}}
	pod := map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "web-1", "namespace": "default"}}
	crd := map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w"}}
	stripType := func(o any) map[string]any {
		b, _ := yaml.Marshal(o)
		var m map[string]any
		_ = yaml.Unmarshal(b, &m)
		delete(m, "apiVersion")
		delete(m, "kind")
		return m
	}
	list := func(items ...any) map[string]any {
		return map[string]any{"apiVersion": "v1", "kind": "List", "items": items, "metadata": map[string]any{"resourceVersion": ""}}
	}
	tests := []struct {
		name            string
		input           string
		namespace, want string // want: the Deployment's namespace/name
		wantReplicas    int32
		wantRSs         []string
	}{
		{name: "single Deployment", input: toYAML(t, d), want: "default/web", wantReplicas: 4},
		{name: "multi-document YAML", input: "# state\n---\n" + toYAML(t, old, d, svc, cur) + "---\n", want: "default/web", wantReplicas: 4, wantRSs: []string{old.Name, cur.Name}},
		{name: "v1 List in YAML with other kinds", input: toYAML(t, list(pod, d, cur, svc, old, crd)), want: "default/web", wantReplicas: 4, wantRSs: []string{old.Name, cur.Name}},
		{name: "typed lists without item kinds", input: toYAML(t,
			map[string]any{"apiVersion": "apps/v1", "kind": "DeploymentList", "items": []any{stripType(d)}},
			map[string]any{"apiVersion": "apps/v1", "kind": "ReplicaSetList", "items": []any{stripType(cur), stripType(old)}}),
			want: "default/web", wantReplicas: 4, wantRSs: []string{old.Name, cur.Name}},
		{name: "JSON stream", input: mustJSON(t, d) + "\n" + mustJSON(t, old) + mustJSON(t, cur), want: "default/web", wantReplicas: 4, wantRSs: []string{old.Name, cur.Name}},
		{name: "JSON array", input: "[" + mustJSON(t, d) + "," + mustJSON(t, cur) + "]", want: "default/web", wantReplicas: 4, wantRSs: []string{cur.Name}},
		{name: "kubectl -o json List (the sample)", input: sampleJSON(t), want: "default/web", wantReplicas: 10, wantRSs: []string{"web-85987f9d96", "web-7cff7755c7", "web-854998db69"}},
		{name: "name picks among several", input: toYAML(t, api, d, cur), want: "default/web", wantReplicas: 4, wantRSs: []string{cur.Name}},
		{name: "namespace picks among same names", input: toYAML(t, d, prod, cur), namespace: "prod", want: "prod/web", wantReplicas: 7, wantRSs: []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := LoadReader(strings.NewReader(tc.input), "state.yaml", tc.namespace, "web")
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Deployment.Namespace + "/" + s.Deployment.Name; got != tc.want {
				t.Errorf("Deployment = %s, want %s", got, tc.want)
			}
			if got := *s.Deployment.Spec.Replicas; got != tc.wantReplicas {
				t.Errorf("replicas = %d, want %d", got, tc.wantReplicas)
			}
			if tc.wantRSs == nil {
				tc.wantRSs = []string{}
			}
			if diff := cmp.Diff(tc.wantRSs, names(s.ReplicaSets)); diff != "" {
				t.Errorf("ReplicaSets (-want +got):\n%s", diff)
			}
			if s.Source != "state.yaml" {
				t.Errorf("Source = %q", s.Source)
			}
		})
	}
}

func TestLoadReaderRoundTripsObjects(t *testing.T) {
	d := testutil.Deployment("web").Replicas(4).Revision(2).CollisionCount(1).Status(4, 4, 4, 3).Build()
	cur := testutil.ReplicaSetFor(d).Revision(2).Replicas(4).Available(3).Build()
	s, err := LoadReader(strings.NewReader(toYAML(t, d, cur)), "x", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(d, s.Deployment); diff != "" {
		t.Errorf("Deployment (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]*appsv1.ReplicaSet{cur}, s.ReplicaSets); diff != "" {
		t.Errorf("ReplicaSets (-want +got):\n%s", diff)
	}
}

func TestLoadReaderNoNameOneDeployment(t *testing.T) {
	d := testutil.Deployment("only").Build()
	s, err := LoadReader(strings.NewReader(toYAML(t, d)), "x", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if s.Deployment.Name != "only" {
		t.Errorf("picked %s", s.Deployment.Name)
	}
}

func TestLoadReaderErrors(t *testing.T) {
	d := testutil.Deployment("web").Build()
	api := testutil.Deployment("api").Build()
	rs := testutil.ReplicaSet("cache", "cache").Build()
	prod := testutil.Deployment("web").Namespace("prod").Build()
	tests := []struct {
		name, input, namespace, target string
		want                           string
	}{
		{name: "empty", input: " \n", want: "state.yaml is empty: expected the output of `kubectl get deploy,rs -o yaml` (or -o json)"},
		{name: "YAML syntax error gives the file line",
			input: toYAML(t, api) + "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n   bad: indent\n",
			want:  "state.yaml:",
		},
		{name: "JSON syntax error gives the line", input: "{\n\"apiVersion\": \"apps/v1\",\n\"kind\" \"Deployment\"\n}", want: "state.yaml:3: document 1: invalid JSON: invalid character '\"' after object key"},
		{name: "wrong field type", input: "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: ten\n", want: `state.yaml: document 1 (line 1): Deployment "web": `},
		{name: "no kind", input: "apiVersion: v1\nmetadata:\n  name: web\n", want: "state.yaml: document 1 (line 1): object has no kind: expected apps/v1 Deployments and ReplicaSets"},
		{name: "old apiVersion", input: "apiVersion: extensions/v1beta1\nkind: Deployment\nmetadata:\n  name: web\n", want: `state.yaml: document 1 (line 1): Deployment "web" has apiVersion "extensions/v1beta1": rollplan reads apps/v1 (what ` + "`kubectl get -o yaml`" + ` prints)`},
		{name: "no deployment at all", input: toYAML(t, rs), want: "state.yaml holds no apps/v1 Deployment: expected the output of `kubectl get deploy,rs -o yaml`"},
		{name: "no such deployment", input: toYAML(t, api, d), target: "webb", want: `deployments.apps "webb" not found in state.yaml: it holds default/api, default/web`},
		{name: "no such deployment in namespace", input: toYAML(t, d), target: "web", namespace: "prod", want: `deployments.apps "web" not found in namespace "prod" in state.yaml: it holds default/web`},
		{name: "target is another kind", input: toYAML(t, api, rs), target: "cache", want: `state.yaml: "cache" is a ReplicaSet (document 2 (line `},
		{name: "several and no name", input: toYAML(t, api, d), want: "state.yaml holds 2 Deployments (api, web): name the one to plan, for example deploy/api"},
		{name: "same name in two namespaces", input: toYAML(t, d, prod), target: "web", want: `state.yaml holds Deployment "web" in several namespaces (default, prod): pass -n/--namespace`},
		{name: "deployment without selector", input: "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: default\n", want: "state.yaml: deployment default/web has no spec.selector: the API server requires one"},
		{name: "negative replicas", input: "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: -5\n", want: `state.yaml: document 1 (line 1): Deployment "web" has spec.replicas -5: the API server stores 0 or more; fix the file`},
		{name: "replica set with negative replicas", input: toYAML(t, d) + "---\napiVersion: apps/v1\nkind: ReplicaSet\nmetadata:\n  name: web-1\nspec:\n  replicas: -1\n", want: `ReplicaSet "web-1" has spec.replicas -1: the API server stores 0 or more`},
		{name: "replicas out of int32 range", input: "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 99999999999\n", want: `state.yaml: document 1 (line 1): Deployment "web": `},
		{name: "name the API server would refuse", input: "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: \"a\\nb\"\n", want: `state.yaml: document 1 (line 1): Deployment "a\nb": metadata.name is invalid: a lowercase RFC 1123 subdomain`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadReader(strings.NewReader(tc.input), "state.yaml", tc.namespace, tc.target)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error:\n  %s\nwant it to contain:\n  %s", err, tc.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
		})
	}
}

func TestLoadReaderYAMLErrorLine(t *testing.T) {
	// The bad line is line 11 of the file, line 6 of document 2 (which starts after a separator
	// with a comment, at a blank line).
	input := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\n--- # two\n\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n    bad: indent\n"
	_, err := LoadReader(strings.NewReader(input), "s.yaml", "", "web")
	if err == nil {
		t.Fatal("no error")
	}
	if want := "s.yaml:11: document 2: invalid YAML: mapping values are not allowed in this context"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
}

func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.yaml")
	if err := os.WriteFile(path, sampleYAML(t), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := LoadFile(path, "default", "web")
	if err != nil {
		t.Fatal(err)
	}
	if s.Source != path || len(s.ReplicaSets) != 3 {
		t.Errorf("Source %q, %d ReplicaSets; want %q and 3", s.Source, len(s.ReplicaSets), path)
	}
	_, err = LoadFile(filepath.Join(dir, "missing.yaml"), "", "web")
	if err == nil || !strings.Contains(err.Error(), "read state file: open "+filepath.Join(dir, "missing.yaml")) {
		t.Errorf("missing file: error %v", err)
	}
}

func mustJSON(t *testing.T, o any) string {
	t.Helper()
	b, err := yaml.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	js, err := yaml.YAMLToJSON(b)
	if err != nil {
		t.Fatal(err)
	}
	return string(js)
}
