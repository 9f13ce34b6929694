package workload

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/resource"
	"k8s.io/kubectl/pkg/cmd/set"
	"k8s.io/kubectl/pkg/polymorphichelpers"
	"k8s.io/kubectl/pkg/scheme"
)

// kubectlRestart is kubectl rollout restart's patch for obj (set.CalculatePatch with
// defaultObjectRestarter), and the restartedAt value kubectl put in it (time.Now()).
func kubectlRestart(t *testing.T, obj runtime.Object) ([]byte, string) {
	t.Helper()
	p := &set.Patch{Info: &resource.Info{Object: obj.DeepCopyObject()}}
	set.CalculatePatch(p, scheme.DefaultJSONEncoder(), set.PatchFn(polymorphichelpers.ObjectRestarterFn))
	if p.Err != nil {
		t.Fatal(p.Err)
	}
	const key = `"kubectl.kubernetes.io/restartedAt":"`
	i := bytes.Index(p.Patch, []byte(key))
	if i < 0 {
		t.Fatalf("kubectl's patch has no restartedAt: %s", p.Patch)
	}
	rest := p.Patch[i+len(key):]
	return p.Patch, string(rest[:bytes.IndexByte(rest, '"')])
}

func TestRestartPatchIsKubectls(t *testing.T) {
	for kind, w := range kinds("db:1") {
		for name, ann := range map[string]map[string]string{"no annotations": nil, "annotations": {"a": "b", RestartedAtAnnotation: "2020-01-01T00:00:00Z"}} {
			w := withImage(t, w, "db:1")
			w.Template().Annotations = ann
			want, at := kubectlRestart(t, w.Object())
			now, err := time.Parse(time.RFC3339, at)
			if err != nil {
				t.Fatal(err)
			}
			got, err := RestartPatch(w, now)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s, %s: patch\n%s\nkubectl's\n%s", kind, name, got, want)
			}
		}
		// Restarting again in the same second: kubectl's empty patch.
		at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		w2 := withImage(t, w, "db:1")
		w2.Template().Annotations = map[string]string{RestartedAtAnnotation: at.Format(time.RFC3339)}
		if p, err := RestartPatch(w2, at); err != nil || string(p) != "{}" {
			t.Errorf("%s: same second: %s %v", kind, p, err)
		}
	}
}

func TestRefuseIsKubectls(t *testing.T) {
	for kind, w := range kinds("db:1") {
		_, perr := polymorphichelpers.ObjectPauserFn(w.Object().DeepCopyObject())
		_, rerr := polymorphichelpers.ObjectResumerFn(w.Object().DeepCopyObject())
		res := w.Kind().Resource() + ".apps"
		for verb, kerr := range map[string]error{"pause": perr, "resume": rerr} {
			// kubectl: fmt.Errorf("error: %s %q %v", resourceString, info.Name, patch.Err)
			want := res + ` "db" ` + kerr.Error()
			got := Refuse(verb, w.Ref()).Error()
			if !strings.HasPrefix(got, want+":") {
				t.Errorf("%s %s: %q, kubectl's %q", kind, verb, got, want)
			}
		}
	}
}
