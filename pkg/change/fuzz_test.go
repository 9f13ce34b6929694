package change_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/change"
)

// FuzzFromManifest feeds the manifest reader of `preview -f` arbitrary bytes, merged into a
// live Deployment or not, then validates the result as ChangeFlags.Desired does. The property:
// no panic; every error is one non-empty line; a result that passes Validate is the live
// Deployment (when there is one) with a selector and 0 or more replicas. Seeds: the recorded
// manifests of testdata/apply and crafted bad ones (a List holding a Pod, negative and
// out-of-range replicas, no selector, truncated YAML, unknown fields). `make fuzz` runs it for
// FUZZTIME; plain `go test` replays the seeds and testdata/fuzz.
func FuzzFromManifest(f *testing.F) {
	paths, err := filepath.Glob(filepath.Join("testdata", "apply", "*.manifest.yaml"))
	if err != nil || len(paths) == 0 {
		f.Fatalf("no manifests in testdata/apply: %v", err)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, false)
		f.Add(data, true)
		f.Add(data[:len(data)/2], true) // truncated
	}
	for _, s := range fuzzManifestSeeds {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	var live appsv1.Deployment
	data, err := os.ReadFile(filepath.Join("testdata", "apply", "web.live.json"))
	if err != nil {
		f.Fatal(err)
	}
	if err := json.Unmarshal(data, &live); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, manifest []byte, withLive bool) {
		var l *appsv1.Deployment
		if withLive {
			l = live.DeepCopy()
		}
		d, err := change.FromManifest(l, manifest)
		if err == nil {
			err = change.Validate(d)
		}
		if err != nil {
			checkOneLine(t, err)
			return
		}
		if l != nil && d.Name != l.Name {
			t.Fatalf("merged into %q, got Deployment %q", l.Name, d.Name)
		}
		if d.Spec.Selector == nil || d.Spec.Replicas == nil || *d.Spec.Replicas < 0 {
			t.Fatalf("a valid result with selector %v and replicas %v", d.Spec.Selector, d.Spec.Replicas)
		}
	})
}

// FuzzSetImages feeds SetImages (--image) two CONTAINER=IMAGE pairs (an empty one is left
// out) on a Deployment with containers web and sidecar and init container migrate. The
// property: no panic; every error is one non-empty line; on success each named container has
// its pair's image, and no image is empty.
func FuzzSetImages(f *testing.F) {
	for _, p := range [][2]string{
		{"web=nginx:1.21", ""}, {"*=nginx:1.21", ""}, {"web=a", "sidecar=b"}, {"migrate=m:2", "web=a"},
		{"=", ""}, {"a=", ""}, {"=x", ""}, {"web", ""}, {"*=a", "web=b"}, {"nope=a", ""}, {"web=a", "web=b"},
		{"we\nb=a", ""}, {"web\n", ""}, {"", ""},
	} {
		f.Add(p[0], p[1])
	}
	d := testutil.Deployment("web").Image("nginx:1.20").Build()
	d.Spec.Template.Spec.Containers = append(d.Spec.Template.Spec.Containers, d.Spec.Template.Spec.Containers[0])
	d.Spec.Template.Spec.Containers[0].Name, d.Spec.Template.Spec.Containers[1].Name = "web", "sidecar"
	d.Spec.Template.Spec.InitContainers = append(d.Spec.Template.Spec.InitContainers, d.Spec.Template.Spec.Containers[0])
	d.Spec.Template.Spec.InitContainers[0].Name = "migrate"
	f.Fuzz(func(t *testing.T, a, b string) {
		var pairs []string
		for _, p := range []string{a, b} {
			if p != "" {
				pairs = append(pairs, p)
			}
		}
		got, err := change.SetImages(d, pairs)
		if err != nil {
			checkOneLine(t, err)
			return
		}
		want := map[string]string{}
		for _, p := range pairs {
			name, image, _ := strings.Cut(p, "=")
			want[name] = image
		}
		spec := got.Spec.Template.Spec
		for _, c := range append(spec.InitContainers, spec.Containers...) {
			if c.Image == "" {
				t.Fatalf("pairs %q left container %q with an empty image", pairs, c.Name)
			}
			if image, ok := want[c.Name]; ok && c.Image != image {
				t.Fatalf("pairs %q: container %q has image %q", pairs, c.Name, c.Image)
			}
			if image, ok := want["*"]; ok && c.Image != image {
				t.Fatalf("pairs %q: container %q has image %q", pairs, c.Name, c.Image)
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

var fuzzManifestSeeds = []string{
	"apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: web\n",
	"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: -5\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: nginx\n        image: nginx\n",
	"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 99999999999\n",
	"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n      containers:\n      - name: nginx\n        image: nginx\n",
	"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels:\n      app: [web\n",
	"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  bogus: 1\n",
	"apiVersion: apps/v1beta1\nkind: Deployment\nmetadata:\n  name: web\n",
	"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: other\n",
	"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: prod\n",
	"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: \"a\\nb\"\nspec:\n  bogus: 1\n",
	"kind: Deployment\n",
	`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":-1}}`,
	`{"apiVersion":"apps/v1","kind":"Deployment"`,
	"---\n---\n",
	"[]",
	"apiVersion: v1\nkind: List\nitems: 5\n",
}
