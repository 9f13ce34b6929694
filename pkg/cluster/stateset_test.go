package cluster

import (
	"strings"
	"testing"
)

// TestLoadReaderAll: every Deployment of a state file, each with the ReplicaSets it claims,
// in the file's order; a file without a Deployment is an empty list.
func TestLoadReaderAll(t *testing.T) {
	doc := func(kind, name, owner string) string {
		own := ""
		if owner != "" {
			own = "\n  ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: " + owner + ", uid: u-" + owner + ", controller: true}]"
		}
		return "apiVersion: apps/v1\nkind: " + kind + "\nmetadata:\n  name: " + name + "\n  namespace: shop\n  uid: u-" + name + "\n  labels: {app: " + strings.Split(name, "-")[0] + "}" + own +
			"\nspec:\n  replicas: 1\n  selector: {matchLabels: {app: " + strings.Split(name, "-")[0] + "}}\n  template: {metadata: {labels: {app: " + strings.Split(name, "-")[0] + "}}, spec: {containers: [{name: a, image: a}]}}\n"
	}
	file := strings.Join([]string{doc("Deployment", "web", ""), doc("ReplicaSet", "web-1", "web"), doc("Deployment", "api", ""), doc("ReplicaSet", "api-1", "api"), doc("ReplicaSet", "api-2", "api")}, "---\n")
	members, err := LoadReaderAll(strings.NewReader(file), "state.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range members {
		if m.Err != nil {
			t.Fatalf("%s: %v", m.Deployment.Name, m.Err)
		}
		line := m.Deployment.Name + ":"
		for _, rs := range m.State.ReplicaSets {
			line += " " + rs.Name
		}
		got = append(got, line+" ("+m.State.Source+")")
	}
	if want := "web: web-1 (state.yaml)|api: api-1 api-2 (state.yaml)"; strings.Join(got, "|") != want {
		t.Errorf("got %q, want %q", strings.Join(got, "|"), want)
	}
	none, err := LoadReaderAll(strings.NewReader("apiVersion: v1\nkind: Service\nmetadata: {name: x}\n"), "svc.yaml")
	if err != nil || len(none) != 0 {
		t.Errorf("no Deployment: %v, %v; want none and no error", none, err)
	}
	if _, err := LoadReaderAll(strings.NewReader("kind: [\n"), "bad.yaml"); err == nil || !strings.HasPrefix(err.Error(), "bad.yaml") {
		t.Errorf("bad file: %v", err)
	}
}
