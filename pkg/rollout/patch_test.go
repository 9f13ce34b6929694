package rollout

import (
	"encoding/json"
	"testing"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
)

// TestGuardJSONPatch applies the guarded rollback patch with the JSON patch library the API
// server uses: it applies like kubectl's patch at the previewed resourceVersion, and fails at
// any other.
func TestGuardJSONPatch(t *testing.T) {
	d, rss := webHistory(10)
	u, err := PreviewUndo(d, rss, 2)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	apply := func(p []byte, doc []byte) ([]byte, error) {
		ops, err := jsonpatch.DecodePatch(p)
		if err != nil {
			t.Fatalf("decode %s: %v", p, err)
		}
		return ops.Apply(doc)
	}
	want, err := apply(u.Patch.Kubectl, doc)
	if err != nil {
		t.Fatal(err)
	}
	got, err := apply(u.Patch.Guarded, doc)
	if err != nil {
		t.Fatalf("guarded patch at the previewed resourceVersion: %v", err)
	}
	if string(got) != string(want) {
		t.Errorf("guarded patch result differs from kubectl's:\n%s\n%s", got, want)
	}
	var result appsv1.Deployment
	if err := json.Unmarshal(got, &result); err != nil {
		t.Fatal(err)
	}
	if result.Spec.Template.Spec.Containers[0].Image != "nginx:1.19" {
		t.Errorf("patched image %q, want nginx:1.19", result.Spec.Template.Spec.Containers[0].Image)
	}
	moved := d.DeepCopy()
	moved.ResourceVersion = "1235"
	doc2, _ := json.Marshal(moved)
	if _, err := apply(u.Patch.Guarded, doc2); err == nil {
		t.Error("guarded patch applied to a Deployment at another resourceVersion")
	}
	if _, err := GuardJSONPatch([]byte(`[]`), "7"); err != nil {
		t.Errorf("empty patch: %v", err)
	}
	if _, err := GuardJSONPatch([]byte(`{}`), "7"); err == nil {
		t.Error("GuardJSONPatch accepted an object")
	}
	if _, err := GuardJSONPatch([]byte(`[]`), ""); err == nil {
		t.Error("GuardJSONPatch accepted an empty resourceVersion")
	}
}

// TestGuardMergePatch: the guard sets metadata.resourceVersion to the previewed value, which
// the API server turns into the update's precondition; the rest is kubectl's patch.
func TestGuardMergePatch(t *testing.T) {
	d, _ := webHistory(10)
	g, err := GuardMergePatch([]byte(`{"spec":{"template":{"metadata":{"annotations":{"a":"b"}}}}}`), "99")
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"metadata":{"resourceVersion":"99"},"spec":{"template":{"metadata":{"annotations":{"a":"b"}}}}}`; string(g) != want {
		t.Errorf("guarded %s, want %s", g, want)
	}
	doc, _ := json.Marshal(d)
	out, err := strategicpatch.StrategicMergePatch(doc, g, &appsv1.Deployment{})
	if err != nil {
		t.Fatal(err)
	}
	var res appsv1.Deployment
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	if res.ResourceVersion != "99" || res.Spec.Template.Annotations["a"] != "b" || res.Spec.Template.Spec.Containers[0].Image != "nginx:1.20" {
		t.Errorf("patched: resourceVersion %q, annotations %v", res.ResourceVersion, res.Spec.Template.Annotations)
	}
}
