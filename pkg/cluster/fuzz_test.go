package cluster

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// FuzzLoadReader feeds the state-file reader arbitrary bytes and target names. The property:
// no panic; an error is one non-empty line; a success names a Deployment with a selector and
// counts the API server could have stored (no negative replicas). Seeds: the example and
// testdata state files, and crafted bad ones (a List holding a Pod, negative and
// out-of-range replicas, a Deployment without spec.selector, truncated YAML and JSON).
// `make fuzz` runs it for FUZZTIME; plain `go test` replays the seeds and testdata/fuzz.
func FuzzLoadReader(f *testing.F) {
	for _, p := range []string{"../../examples/state.yaml", "testdata/web.yaml"} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, "", "")
		f.Add(data, "shop", "web")
		f.Add(data[:len(data)/2], "", "web") // truncated
	}
	for _, s := range fuzzStateSeeds {
		f.Add([]byte(s), "", "")
	}
	f.Fuzz(func(t *testing.T, data []byte, namespace, name string) {
		st, err := LoadReader(bytes.NewReader(data), "state.yaml", namespace, name)
		if err != nil {
			checkOneLine(t, err)
			return
		}
		if st == nil || st.Deployment == nil {
			t.Fatalf("LoadReader succeeded without a Deployment: %#v", st)
		}
		d := st.Deployment
		if d.Spec.Selector == nil {
			t.Fatalf("LoadReader accepted Deployment %q without spec.selector", d.Name)
		}
		if d.Spec.Replicas != nil && *d.Spec.Replicas < 0 {
			t.Fatalf("LoadReader accepted Deployment %q with spec.replicas %d", d.Name, *d.Spec.Replicas)
		}
		for _, rs := range st.ReplicaSets {
			if rs.Spec.Replicas != nil && *rs.Spec.Replicas < 0 {
				t.Fatalf("LoadReader accepted ReplicaSet %q with spec.replicas %d", rs.Name, *rs.Spec.Replicas)
			}
		}
	})
}

// checkOneLine fails t unless err's message is one non-empty line.
func checkOneLine(t *testing.T, err error) {
	t.Helper()
	msg := err.Error()
	if strings.TrimSpace(msg) == "" || strings.ContainsAny(msg, "\r\n") {
		t.Fatalf("error is not one non-empty line: %q", msg)
	}
}

var fuzzStateSeeds = []string{
	"apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: web\n",
	"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: -5\n  selector:\n    matchLabels:\n      app: web\n",
	"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 99999999999\n  selector:\n    matchLabels:\n      app: web\n",
	"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3\n",
	"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels:\n      app: web\n---\napiVersion: apps/v1\nkind: ReplicaSet\nmetadata:\n  name: web-1\n  labels:\n    app: web\nspec:\n  replicas: -5\n",
	"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels:\n      app: [web\n",
	`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"selector":{"matchLabels":{"app":"web"}}`,
	`[{"apiVersion":"apps/v1","kind":"DeploymentList","items":[{"metadata":{"name":"web"}}]}]`,
	"kind: Deployment\n",
	"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: \"a\\nb\"\nspec:\n  selector:\n    matchExpressions:\n    - key: app\n      operator: Bogus\n",
	"---\n# only a comment\n---\n",
	"null",
	"[]",
	"apiVersion: apps/v2\nkind: Deployment\nmetadata:\n  name: web\n",
}
