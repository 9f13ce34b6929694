package change_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/change"
)

// FromManifest against `kubectl apply --dry-run=server` recorded on a v1.36.3 cluster
// (testdata/apply/README.md): spec, labels and annotations (the new last-applied
// configuration included) must be kubectl's.
func TestFromManifestMatchesKubectlApply(t *testing.T) {
	for _, name := range []string{
		"web", // live object made by kubectl create: no last-applied, replicas kept
		"api", // made by kubectl apply: dropped replicas, container, env var and annotation go
	} {
		t.Run(name, func(t *testing.T) {
			var live, want appsv1.Deployment
			readJSON(t, filepath.Join("testdata", "apply", name+".live.json"), &live)
			readJSON(t, filepath.Join("testdata", "apply", name+".kubectl-dry-run.json"), &want)
			manifest, err := os.ReadFile(filepath.Join("testdata", "apply", name+".manifest.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			before := live.DeepCopy()
			got, err := change.FromManifest(&live, manifest)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want.Spec, got.Spec); diff != "" {
				t.Errorf("spec (-kubectl +ours):\n%s", diff)
			}
			if diff := cmp.Diff(want.Annotations, got.Annotations); diff != "" {
				t.Errorf("annotations (-kubectl +ours):\n%s", diff)
			}
			if diff := cmp.Diff(want.Labels, got.Labels); diff != "" {
				t.Errorf("labels (-kubectl +ours):\n%s", diff)
			}
			if got.ResourceVersion != live.ResourceVersion || got.UID != live.UID {
				t.Errorf("metadata not kept: rv %q uid %q", got.ResourceVersion, got.UID)
			}
			if diff := cmp.Diff(before, &live); diff != "" {
				t.Errorf("live mutated:\n%s", diff)
			}
		})
	}
}

func TestFromManifestMerge(t *testing.T) {
	live := testutil.Deployment("web").Replicas(10).Container("side", "envoy:1").Build()
	tests := []struct {
		name     string
		live     *appsv1.Deployment
		manifest string
		check    func(t *testing.T, d *appsv1.Deployment)
	}{
		{
			name: "omitted replicas keep the live count (an autoscaler's)",
			live: live,
			manifest: `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx:1.19}]
`,
			check: func(t *testing.T, d *appsv1.Deployment) {
				if *d.Spec.Replicas != 10 {
					t.Errorf("replicas %d, want the live 10", *d.Spec.Replicas)
				}
				// Without a last-applied annotation nothing is deleted: the sidecar stays.
				if diff := cmp.Diff([]string{"web=nginx:1.19", "side=envoy:1"}, imagesOf(d).Containers); diff != "" {
					t.Errorf("containers (-want +got):\n%s", diff)
				}
				if d.Annotations[corev1.LastAppliedConfigAnnotation] == "" {
					t.Errorf("no last-applied annotation")
				}
			},
		},
		{
			name: "a field the last apply set and this one drops is removed and defaulted",
			live: testutil.Deployment("web").Replicas(10).Annotation(corev1.LastAppliedConfigAnnotation,
				`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"default"},"spec":{"replicas":10,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"image":"nginx:1.18","name":"web"}]}}}}`).Build(),
			manifest: `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx:1.18}]
`,
			check: func(t *testing.T, d *appsv1.Deployment) {
				if *d.Spec.Replicas != 1 {
					t.Errorf("replicas %d, want the default 1", *d.Spec.Replicas)
				}
			},
		},
		{
			name:     "JSON manifest with a namespace equal to live's",
			live:     live,
			manifest: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"default"},"spec":{"strategy":{"type":"Recreate","rollingUpdate":null}}}`,
			check: func(t *testing.T, d *appsv1.Deployment) {
				if d.Spec.Strategy.Type != appsv1.RecreateDeploymentStrategyType || d.Spec.Strategy.RollingUpdate != nil {
					t.Errorf("strategy %+v, want Recreate without rollingUpdate", d.Spec.Strategy)
				}
			},
		},
		{
			name: "the Deployment among other kinds, in a List",
			live: live,
			manifest: `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Service
  metadata: {name: web}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web}
  spec: {replicas: 3}
`,
			check: func(t *testing.T, d *appsv1.Deployment) {
				if *d.Spec.Replicas != 3 {
					t.Errorf("replicas %d, want 3", *d.Spec.Replicas)
				}
			},
		},
		{
			name: "the target among several Deployments",
			live: live,
			manifest: `apiVersion: apps/v1
kind: Deployment
metadata: {name: api}
spec: {replicas: 2}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cfg}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec: {replicas: 4}
`,
			check: func(t *testing.T, d *appsv1.Deployment) {
				if *d.Spec.Replicas != 4 {
					t.Errorf("replicas %d, want 4 (web's)", *d.Spec.Replicas)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.live.DeepCopy()
			got, err := change.FromManifest(tc.live, []byte(tc.manifest))
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, got)
			if diff := cmp.Diff(before, tc.live); diff != "" {
				t.Errorf("live mutated:\n%s", diff)
			}
		})
	}
}

func TestFromManifestCreate(t *testing.T) {
	manifest := `apiVersion: apps/v1
kind: Deployment
metadata: {name: new}
spec:
  selector: {matchLabels: {app: new}}
  template:
    metadata: {labels: {app: new}}
    spec:
      containers: [{name: new, image: nginx:1.18}]
`
	got, err := change.FromManifest(nil, []byte(manifest))
	if err != nil {
		t.Fatal(err)
	}
	want := testutil.Deployment("new").Undefaulted().Build()
	want.Labels = nil
	want = change.ApplyDefaults(want)
	want.Annotations = map[string]string{corev1.LastAppliedConfigAnnotation: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"annotations":{},"name":"new"},"spec":{"selector":{"matchLabels":{"app":"new"}},"template":{"metadata":{"labels":{"app":"new"}},"spec":{"containers":[{"image":"nginx:1.18","name":"new"}]}}}}` + "\n"}
	want.Namespace = ""
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("created Deployment (-want +got):\n%s", diff)
	}
}

func TestFromManifestErrors(t *testing.T) {
	live := testutil.Deployment("web").Build()
	tests := []struct {
		name     string
		live     *appsv1.Deployment
		manifest string
		want     string
	}{
		{name: "not a Deployment", live: live, manifest: "apiVersion: v1\nkind: Service\nmetadata: {name: web}\n",
			want: `manifest holds no Deployment (it holds Service "web"): rollplan works on Deployments`},
		{name: "empty", live: live, manifest: "# nothing\n", want: "manifest holds no object: expected an apps/v1 Deployment"},
		{name: "another name", live: live, manifest: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: api}\n",
			want: `manifest holds Deployment "api", not "web": the manifest must be for the target Deployment`},
		{name: "another namespace", live: live, manifest: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: prod}\n",
			want: `manifest puts Deployment "web" in namespace "prod", but the target is in "default": pass -n prod or fix metadata.namespace`},
		{name: "several without a target", live: nil, manifest: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: b}\n",
			want: `manifest holds 2 Deployments ("a", "b"): name the one to plan`},
		{name: "old apiVersion", live: live, manifest: "apiVersion: apps/v1beta2\nkind: Deployment\nmetadata: {name: web}\n",
			want: `manifest: Deployment "web" has apiVersion apps/v1beta2: use apps/v1`},
		{name: "unknown field", live: live, manifest: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicass: 3}\n",
			want: `manifest: deployment "web": strict decoding error: unknown field "spec.replicass"`},
		{name: "wrong type", live: live, manifest: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: ten}\n",
			want: `manifest: deployment "web": `},
		{name: "no kind", live: live, manifest: "apiVersion: apps/v1\nmetadata: {name: web}\n",
			want: "manifest: document 1 has no kind"},
		{name: "bad YAML", live: live, manifest: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web\n",
			want: "manifest: document 1: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := change.FromManifest(tc.live, []byte(tc.manifest))
			if err == nil {
				t.Fatalf("no error; got %v", got.Name)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error\n  %s\nwant it to contain\n  %s", err, tc.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
		})
	}
}
