package reload

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
)

// applyPatch applies patch to dep's JSON as the API server applies a JSON patch.
func applyPatch(t *testing.T, dep *appsv1.Deployment, patch []byte) (*appsv1.Deployment, error) {
	t.Helper()
	p, err := jsonpatch.DecodePatch(patch)
	if err != nil {
		t.Fatalf("decode patch %s: %v", patch, err)
	}
	doc, err := json.Marshal(dep)
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Apply(doc)
	if err != nil {
		return nil, err
	}
	var got appsv1.Deployment
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	return &got, nil
}

func TestRestartPatch(t *testing.T) {
	checksums := map[string]string{"secret/db": "s1", "configmap/app": "c1"}
	encoded := `{"configmap/app":"c1","secret/db":"s1"}`
	noAnnotations := testutil.Deployment("web").Build()
	noAnnotations.Spec.Template.Annotations = nil
	tests := []struct {
		name string
		dep  *appsv1.Deployment
		want string
	}{
		{name: "template without annotations: add the map", dep: noAnnotations,
			want: `[{"op":"test","path":"/metadata/uid","value":"` + string(noAnnotations.UID) + `"},{"op":"test","path":"/metadata/generation","value":1},` +
				`{"op":"add","path":"/spec/template/metadata/annotations","value":{"rollplan.dev/config-checksums":` + jsonString(encoded) + `}}]`},
		{name: "other template annotations: add the key", dep: testutil.Deployment("web").TemplateAnnotation("team", "a").Build(),
			want: `[{"op":"test","path":"/metadata/uid","value":"` + string(noAnnotations.UID) + `"},{"op":"test","path":"/metadata/generation","value":1},` +
				`{"op":"add","path":"/spec/template/metadata/annotations/rollplan.dev~1config-checksums","value":` + jsonString(encoded) + `}]`},
		{name: "a recorded annotation: test it, then replace", dep: testutil.Deployment("web").TemplateAnnotation(ChecksumsAnnotation, `{"configmap/app":"c0"}`).Build(),
			want: `[{"op":"test","path":"/metadata/uid","value":"` + string(noAnnotations.UID) + `"},{"op":"test","path":"/metadata/generation","value":1},` +
				`{"op":"test","path":"/spec/template/metadata/annotations/rollplan.dev~1config-checksums","value":` + jsonString(`{"configmap/app":"c0"}`) + `},` +
				`{"op":"replace","path":"/spec/template/metadata/annotations/rollplan.dev~1config-checksums","value":` + jsonString(encoded) + `}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			patch, err := RestartPatch(tt.dep, checksums)
			if err != nil {
				t.Fatal(err)
			}
			if string(patch) != tt.want {
				t.Errorf("patch\n%s\nwant\n%s", patch, tt.want)
			}
			got, err := applyPatch(t, tt.dep, patch)
			if err != nil {
				t.Fatalf("apply to the deployment it was built from: %v", err)
			}
			want := tt.dep.DeepCopy()
			if want.Spec.Template.Annotations == nil {
				want.Spec.Template.Annotations = map[string]string{}
			}
			want.Spec.Template.Annotations[ChecksumsAnnotation] = encoded
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("patched deployment: only the checksums annotation may change (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRestartPatchGuards(t *testing.T) {
	recordedDep := testutil.Deployment("web").TemplateAnnotation(ChecksumsAnnotation, `{"configmap/app":"c0"}`).Build()
	absentDep := testutil.Deployment("web").Build()
	absentDep.Spec.Template.Annotations = nil
	tests := []struct {
		name  string
		read  *appsv1.Deployment
		moved func(d *appsv1.Deployment)
	}{
		{name: "another restart changed the annotation (generation kept)", read: recordedDep, moved: func(d *appsv1.Deployment) {
			d.Spec.Template.Annotations[ChecksumsAnnotation] = `{"configmap/app":"c1"}`
		}},
		{name: "a spec write bumped the generation", read: absentDep, moved: func(d *appsv1.Deployment) {
			d.Spec.Template.Annotations = map[string]string{ChecksumsAnnotation: `{"configmap/app":"c1"}`}
			d.Generation++
		}},
		{name: "the deployment was recreated under its name", read: absentDep, moved: func(d *appsv1.Deployment) { d.UID = "another" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			patch, err := RestartPatch(tt.read, map[string]string{"configmap/app": "c2"})
			if err != nil {
				t.Fatal(err)
			}
			live := tt.read.DeepCopy()
			tt.moved(live)
			if _, err := applyPatch(t, live, patch); err == nil {
				t.Errorf("patch %s applied to a deployment that moved on", patch)
			}
		})
	}
	t.Run("a status write does not refuse it", func(t *testing.T) {
		patch, err := RestartPatch(absentDep, map[string]string{"configmap/app": "c2"})
		if err != nil {
			t.Fatal(err)
		}
		live := absentDep.DeepCopy()
		live.Status.ObservedGeneration, live.Status.Replicas, live.ResourceVersion = 1, 3, "99"
		if _, err := applyPatch(t, live, patch); err != nil {
			t.Errorf("status write refused the restart: %v", err)
		}
	})
}

func TestRestartPatchErrors(t *testing.T) {
	unread := testutil.Deployment("web").Undefaulted().Build()
	tests := []struct {
		name      string
		dep       *appsv1.Deployment
		checksums map[string]string
		wantErr   string
	}{
		{"nil deployment", nil, map[string]string{}, "no deployment"},
		{"a refused decision's nil checksums", testutil.Deployment("web").Build(), nil, "a refused restart writes nothing"},
		{"not read from the API server", unread, map[string]string{}, "read the deployment from the API server"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := RestartPatch(tt.dep, tt.checksums)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestAdoptPatch(t *testing.T) {
	sums := map[string]string{"configmap/app": "c1"}
	dep := testutil.Deployment("web").ResourceVersion("7").Annotation("team", "a").Build()
	patch, err := AdoptPatch(dep, sums)
	if err != nil {
		t.Fatal(err)
	}
	got, err := applyPatch(t, dep, patch)
	if err != nil {
		t.Fatal(err)
	}
	if got.Annotations[AdoptedAnnotation] != `{"configmap/app":"c1"}` || got.Annotations["team"] != "a" {
		t.Errorf("annotations after adopt = %v", got.Annotations)
	}
	if diff := cmp.Diff(dep.Spec, got.Spec); diff != "" {
		t.Errorf("adopt changed the spec (a restart):\n%s", diff)
	}
	if d := Decide(got, nil); d.RecordedIn != RecordedByAdopt {
		t.Errorf("RecordedIn = %q after adopt", d.RecordedIn)
	}
	moved := dep.DeepCopy()
	moved.ResourceVersion = "8"
	if _, err := applyPatch(t, moved, patch); err == nil {
		t.Error("adopt patch applied to a Deployment whose resourceVersion moved on")
	}
	bare := testutil.Deployment("web").ResourceVersion("7").Build()
	bare.Annotations = nil
	patch, err = AdoptPatch(bare, sums)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := applyPatch(t, bare, patch); err != nil || got.Annotations[AdoptedAnnotation] == "" {
		t.Errorf("adopt on a Deployment without annotations: %v, %v", got, err)
	}
	for name, d := range map[string]*appsv1.Deployment{"nil": nil, "unread": testutil.Deployment("web").Undefaulted().Build()} {
		if _, err := AdoptPatch(d, sums); err == nil {
			t.Errorf("%s: AdoptPatch accepted it", name)
		}
	}
	if _, err := AdoptPatch(dep, nil); err == nil {
		t.Error("AdoptPatch accepted nil checksums")
	}
}
