package reload

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func templateWith(annotation string) *corev1.PodTemplateSpec {
	t := &corev1.PodTemplateSpec{}
	if annotation != "" {
		t.Annotations = map[string]string{ChecksumsAnnotation: annotation}
	}
	return t
}

func TestRestarted(t *testing.T) {
	dep := webDeployment()
	dep.Spec.Template.Annotations = nil
	sums := map[string]string{"secret/db": "s", "configmap/app": "c"}
	got := Restarted(dep, sums)
	if got.Spec.Template.Annotations[ChecksumsAnnotation] != `{"configmap/app":"c","secret/db":"s"}` {
		t.Errorf("annotation = %q", got.Spec.Template.Annotations[ChecksumsAnnotation])
	}
	if dep.Spec.Template.Annotations != nil {
		t.Error("Restarted modified its input")
	}
	// Restarted is what RestartPatch leaves.
	read := webDeployment()
	patch, err := RestartPatch(read, sums)
	if err != nil {
		t.Fatal(err)
	}
	applied, err := applyPatch(t, read, patch)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Restarted(read, sums).Spec, applied.Spec); diff != "" {
		t.Errorf("Restarted differs from the patched Deployment (-Restarted +patched):\n%s", diff)
	}
	if Restarted(nil, sums) != nil {
		t.Error("Restarted(nil) != nil")
	}
}

func TestConfigChanges(t *testing.T) {
	tests := []struct {
		name      string
		prev, cur *corev1.PodTemplateSpec
		want      []string
		ok        bool
	}{
		{name: "neither records", prev: templateWith(""), cur: templateWith(""), ok: true},
		{name: "first revision records every reference as added", prev: nil, cur: templateWith(`{"configmap/app":"1","secret/db":"2"}`),
			want: []string{"+configmap/app", "+secret/db"}, ok: true},
		{name: "first record after an unrecorded revision", prev: templateWith(""), cur: templateWith(`{"configmap/app":"1"}`),
			want: []string{"+configmap/app"}, ok: true},
		{name: "one changed, one same", prev: templateWith(`{"configmap/app":"1","secret/db":"2"}`), cur: templateWith(`{"configmap/app":"9","secret/db":"2"}`),
			want: []string{"configmap/app"}, ok: true},
		{name: "added and removed, sorted", prev: templateWith(`{"configmap/z":"1","secret/db":"2"}`), cur: templateWith(`{"configmap/a":"1","secret/db":"2"}`),
			want: []string{"+configmap/a", "-configmap/z"}, ok: true},
		{name: "a later template without the annotation claims nothing", prev: templateWith(`{"configmap/app":"1"}`), cur: templateWith(""), ok: true},
		{name: "a malformed annotation", prev: templateWith(`{"configmap/app":"1"}`), cur: templateWith(`nope`), ok: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			changes, ok := ConfigChanges(tt.prev, tt.cur)
			var got []string
			for _, c := range changes {
				got = append(got, c.String())
			}
			if ok != tt.ok {
				t.Errorf("ok = %v, want %v", ok, tt.ok)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ConfigChanges (-want +got):\n%s", diff)
			}
		})
	}
}

func TestChangesFor(t *testing.T) {
	dep := webDeployment() // configmap/app key A (env), secret/db every key, configmap/extra optional every key
	app := func(data map[string]string) *Object { o := cmObject("app", data); return &o }
	tests := []struct {
		name          string
		before, after *Object
		seen, changed bool
	}{
		{name: "a seen key changes", before: app(map[string]string{"A": "1", "B": "x"}), after: app(map[string]string{"A": "2", "B": "x"}), seen: true, changed: true},
		{name: "another key changes: seen, not changed", before: app(map[string]string{"A": "1", "B": "x"}), after: app(map[string]string{"A": "1", "B": "y"}), seen: true},
		{name: "created", before: nil, after: app(map[string]string{"A": "1"}), seen: true, changed: true},
		{name: "deleted", before: app(map[string]string{"A": "1"}), after: nil, seen: true, changed: true},
		{name: "an object the pods do not see", before: nil, after: func() *Object { o := cmObject("unrelated", map[string]string{"A": "1"}); return &o }()},
		{name: "a secret of the same name as a seen configmap is another object", after: func() *Object {
			o := SecretObject(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "app", UID: "u"}, Data: map[string][]byte{"A": []byte("1")}})
			return &o
		}()},
		{name: "nothing at all"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ref, changed := ChangesFor(dep, tt.before, tt.after)
			if changed != tt.changed || (ref.Name != "") != tt.seen {
				t.Errorf("ChangesFor = %v, %v; want seen %v, changed %v", ref, changed, tt.seen, tt.changed)
			}
		})
	}
}
