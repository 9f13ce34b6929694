package reload

import (
	"errors"
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
)

// webDeployment references ConfigMap app key A (env), Secret db (envFrom) and the optional
// ConfigMap extra (a volume).
func webDeployment() *appsv1.Deployment {
	d := testutil.Deployment("web").Containers(corev1.Container{Name: "web", Image: "nginx:1.18",
		Env:     []corev1.EnvVar{cmKeyEnv("app", "A", nil)},
		EnvFrom: []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "db"}}}},
	}).Build()
	d.Spec.Template.Spec.Volumes = []corev1.Volume{{Name: "extra", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
		LocalObjectReference: corev1.LocalObjectReference{Name: "extra"}, Optional: ptr.To(true)}}}}
	return d
}

func cmObject(name string, data map[string]string) Object {
	return ConfigMapObject(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-cm-" + name)}, Data: data})
}

func secretObject(name, uid string, data map[string]string) Object {
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID(uid)}, Data: map[string][]byte{}}
	for k, v := range data {
		s.Data[k] = []byte(v)
	}
	return SecretObject(s)
}

func objectsOf(objs ...Object) map[ObjectKey]Object {
	m := map[ObjectKey]Object{}
	for _, o := range objs {
		m[KeyOf(testutil.DefaultNamespace, o)] = o
	}
	return m
}

// baseObjects is what webDeployment was last restarted with (see recorded).
func baseObjects() map[ObjectKey]Object {
	return objectsOf(
		cmObject("app", map[string]string{"A": "1", "B": "unseen"}),
		secretObject("db", "uid-db", map[string]string{"password": "hunter2"}),
		cmObject("extra", map[string]string{"x": "1"}),
	)
}

// recorded returns dep as a restart against objects leaves it: its template annotation set
// to that Decision's Checksums.
func recorded(t *testing.T, dep *appsv1.Deployment, objects map[ObjectKey]Object) *appsv1.Deployment {
	t.Helper()
	d := Decide(dep, objects)
	if d.Refused() {
		t.Fatalf("recording refused: %v", d.Refusal)
	}
	out := dep.DeepCopy()
	if out.Spec.Template.Annotations == nil {
		out.Spec.Template.Annotations = map[string]string{}
	}
	out.Spec.Template.Annotations[ChecksumsAnnotation] = EncodeChecksums(d.Checksums)
	return out
}

func with(objects map[ObjectKey]Object, objs ...Object) map[ObjectKey]Object {
	m := maps.Clone(objects)
	for _, o := range objs {
		m[KeyOf(testutil.DefaultNamespace, o)] = o
	}
	return m
}

func without(objects map[ObjectKey]Object, kind Kind, name string) map[ObjectKey]Object {
	m := maps.Clone(objects)
	delete(m, ObjectKey{Namespace: testutil.DefaultNamespace, Kind: kind, Name: name})
	return m
}

func TestDecide(t *testing.T) {
	restarted := func(t *testing.T) *appsv1.Deployment { return recorded(t, webDeployment(), baseObjects()) }
	extraAbsent := func(t *testing.T) *appsv1.Deployment {
		return recorded(t, webDeployment(), without(baseObjects(), ConfigMap, "extra"))
	}
	tests := []struct {
		name    string
		dep     func(t *testing.T) *appsv1.Deployment
		objects map[ObjectKey]Object
		states  []State // configmap/app, configmap/extra, secret/db
		stale   bool
		refused bool
	}{
		{name: "first sight: unrecorded, not stale", dep: func(*testing.T) *appsv1.Deployment { return webDeployment() }, objects: baseObjects(),
			states: []State{Unrecorded, Unrecorded, Unrecorded}},
		{name: "unchanged since the restart: current", dep: restarted, objects: baseObjects(),
			states: []State{Current, Current, Current}},
		{name: "a seen key changed: stale", dep: restarted, objects: with(baseObjects(), cmObject("app", map[string]string{"A": "2", "B": "unseen"})),
			states: []State{Changed, Current, Current}, stale: true},
		{name: "an unseen key changed: not stale", dep: restarted, objects: with(baseObjects(), cmObject("app", map[string]string{"A": "1", "B": "edited"})),
			states: []State{Current, Current, Current}},
		{name: "a secret value changed: stale", dep: restarted, objects: with(baseObjects(), secretObject("db", "uid-db", map[string]string{"password": "hunter3"})),
			states: []State{Current, Current, Changed}, stale: true},
		{name: "a secret recreated with the same data (new UID): changed", dep: restarted, objects: with(baseObjects(), secretObject("db", "uid-db-2", map[string]string{"password": "hunter2"})),
			states: []State{Current, Current, Changed}, stale: true},
		{name: "an optional object missing, recorded present: stale", dep: restarted, objects: without(baseObjects(), ConfigMap, "extra"),
			states: []State{Current, Missing, Current}, stale: true},
		{name: "an optional object missing, recorded absent: not stale", dep: extraAbsent, objects: without(baseObjects(), ConfigMap, "extra"),
			states: []State{Current, Missing, Current}},
		{name: "an optional object created since it was recorded absent: changed", dep: extraAbsent, objects: baseObjects(),
			states: []State{Current, Changed, Current}, stale: true},
		{name: "an optional object missing at first sight: not stale, not refused", dep: func(*testing.T) *appsv1.Deployment { return webDeployment() }, objects: without(baseObjects(), ConfigMap, "extra"),
			states: []State{Unrecorded, Missing, Unrecorded}},
		{name: "a non-optional secret missing: refused", dep: restarted, objects: without(baseObjects(), Secret, "db"),
			states: []State{Current, Current, Missing}, refused: true},
		{name: "changed and a non-optional object missing: stale and refused", dep: restarted,
			objects: without(with(baseObjects(), cmObject("app", map[string]string{"A": "9"})), Secret, "db"),
			states:  []State{Changed, Current, Missing}, stale: true, refused: true},
		{name: "an object of another namespace does not count", dep: restarted,
			objects: func() map[ObjectKey]Object {
				m := without(baseObjects(), Secret, "db")
				m[ObjectKey{Namespace: "other", Kind: Secret, Name: "db"}] = secretObject("db", "uid-db", map[string]string{"password": "hunter2"})
				return m
			}(),
			states: []State{Current, Current, Missing}, refused: true},
		{name: "a reference added since the restart: unrecorded", dep: func(t *testing.T) *appsv1.Deployment {
			d := restarted(t)
			d.Spec.Template.Spec.Containers[0].Env = append(d.Spec.Template.Spec.Containers[0].Env, cmKeyEnv("flags", "F", nil))
			return d
		}, objects: with(baseObjects(), cmObject("flags", map[string]string{"F": "on"})),
			states: []State{Current, Current, Unrecorded, Current}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Decide(tt.dep(t), tt.objects)
			var states []State
			for _, s := range d.Refs {
				states = append(states, s.State)
			}
			if diff := cmp.Diff(tt.states, states); diff != "" {
				t.Errorf("states (-want +got):\n%s\n%s", diff, d)
			}
			if d.Stale != tt.stale {
				t.Errorf("Stale = %v, want %v (%s)", d.Stale, tt.stale, d)
			}
			if d.Refused() != tt.refused {
				t.Errorf("Refused = %v, want %v (%v)", d.Refused(), tt.refused, d.Refusal)
			}
			if tt.refused && d.Checksums != nil {
				t.Errorf("a refused decision has checksums to write: %v", d.Checksums)
			}
			if !tt.refused && len(d.Checksums) != len(d.Refs) {
				t.Errorf("Checksums %v: want one per reference (%d)", d.Checksums, len(d.Refs))
			}
			if d.AnnotationErr != nil {
				t.Errorf("AnnotationErr = %v", d.AnnotationErr)
			}
		})
	}
}

func TestDecideRestartRecordsCurrentChecksums(t *testing.T) {
	objects := without(baseObjects(), ConfigMap, "extra")
	d := Decide(webDeployment(), objects)
	want := map[string]string{
		"configmap/app":   objects[ObjectKey{testutil.DefaultNamespace, ConfigMap, "app"}].Checksum(Ref{Kind: ConfigMap, Name: "app", Keys: []string{"A"}}),
		"configmap/extra": AbsentChecksum,
		"secret/db":       objects[ObjectKey{testutil.DefaultNamespace, Secret, "db"}].Checksum(Ref{Kind: Secret, Name: "db", AllKeys: true}),
	}
	if diff := cmp.Diff(want, d.Checksums); diff != "" {
		t.Errorf("Checksums (-want +got):\n%s", diff)
	}
	if got := d.Annotation(); got != EncodeChecksums(want) {
		t.Errorf("Annotation = %s, want %s", got, EncodeChecksums(want))
	}
	if refused := Decide(webDeployment(), nil); refused.Annotation() != "" {
		t.Errorf("a refused decision's Annotation = %q, want empty", refused.Annotation())
	}
	if d.Deployment != testutil.DefaultNamespace+"/web" {
		t.Errorf("Deployment = %q", d.Deployment)
	}
}

func TestDecideRefusalMessage(t *testing.T) {
	d := Decide(webDeployment(), without(without(baseObjects(), Secret, "db"), ConfigMap, "app"))
	if !errors.Is(d.Refusal, ErrMissingReference) {
		t.Fatalf("Refusal = %v, want one matching ErrMissingReference", d.Refusal)
	}
	msg := d.Refusal.Error()
	for _, want := range []string{"deployment " + testutil.DefaultNamespace + "/web", "configmap/app, secret/db", "CreateContainerConfigError", "optional: true", "create it"} {
		if !strings.Contains(msg, want) {
			t.Errorf("refusal %q does not contain %q", msg, want)
		}
	}
	if strings.Contains(msg, "extra") {
		t.Errorf("refusal %q names the optional ConfigMap extra", msg)
	}
}

func TestDecideMalformedAnnotation(t *testing.T) {
	dep := testutil.Deployment("web").TemplateAnnotation(ChecksumsAnnotation, "not json").Containers(corev1.Container{
		Name: "web", Image: "nginx:1.18", Env: []corev1.EnvVar{cmKeyEnv("app", "A", nil)}}).Build()
	d := Decide(dep, baseObjects())
	if d.AnnotationErr == nil || !strings.Contains(d.AnnotationErr.Error(), ChecksumsAnnotation) {
		t.Fatalf("AnnotationErr = %v, want one naming %s", d.AnnotationErr, ChecksumsAnnotation)
	}
	if len(d.Refs) != 1 || d.Refs[0].State != Unrecorded || d.Stale || d.Refused() {
		t.Errorf("decision %s: want one unrecorded reference, not stale, not refused", d)
	}
	if !strings.Contains(d.String(), "malformed "+ChecksumsAnnotation) {
		t.Errorf("String %q does not say the annotation is malformed", d)
	}
}

func TestDecideNil(t *testing.T) {
	if d := Decide(nil, nil); d.Deployment != "" || d.Refs != nil || d.Stale || d.Refused() {
		t.Errorf("Decide(nil) = %+v, want the zero Decision", d)
	}
}

func TestDecisionString(t *testing.T) {
	d := Decide(recorded(t, webDeployment(), baseObjects()), with(baseObjects(), cmObject("app", map[string]string{"A": "2"})))
	want := "deployment " + testutil.DefaultNamespace + "/web: stale; ConfigMap/app [A]: changed; ConfigMap/extra [*] (optional): current; Secret/db [*]: current"
	if got := d.String(); got != want {
		t.Errorf("String =\n%s\nwant\n%s", got, want)
	}
}

// TestSecretValueNeverShown: no output of this package holds a Secret's value.
func TestSecretValueNeverShown(t *testing.T) {
	const value = "hunter2"
	secret := secretObject("db", "uid-db", map[string]string{"password": value})
	dep := webDeployment()
	cases := map[string]Decision{
		"first sight": Decide(dep, with(baseObjects(), secret)),
		"changed":     Decide(recorded(t, dep, baseObjects()), with(baseObjects(), secretObject("db", "uid-db", map[string]string{"password": value + "!"}))),
		"refused":     Decide(dep, without(baseObjects(), ConfigMap, "app")),
	}
	for name, d := range cases {
		t.Run(name, func(t *testing.T) {
			outputs := []string{d.String(), fmt.Sprint(d), fmt.Sprintf("%+v", d), fmt.Sprintf("%#v", d), EncodeChecksums(d.Checksums), fmt.Sprintf("%#v", secret)}
			if d.Refusal != nil {
				outputs = append(outputs, d.Refusal.Error())
			}
			for _, o := range outputs {
				if strings.Contains(o, value) {
					t.Errorf("output holds the secret value: %s", o)
				}
			}
		})
	}
}

func TestDecideAdopted(t *testing.T) {
	adopt := func(dep *appsv1.Deployment, objects map[ObjectKey]Object) *appsv1.Deployment {
		out := dep.DeepCopy()
		if out.Annotations == nil {
			out.Annotations = map[string]string{}
		}
		out.Annotations[AdoptedAnnotation] = Decide(dep, objects).Annotation()
		return out
	}
	adopted := adopt(webDeployment(), baseObjects())
	if d := Decide(adopted, baseObjects()); d.RecordedIn != RecordedByAdopt || d.Stale || d.FirstSight() {
		t.Errorf("adopted, unchanged: %s (recorded in %q)", d, d.RecordedIn)
	}
	changed := with(baseObjects(), cmObject("app", map[string]string{"A": "2"}))
	if d := Decide(adopted, changed); !d.Stale || d.Refs[0].State != Changed {
		t.Errorf("adopted, then a seen key changed: %s", d)
	}
	// After a restart, the template annotation wins over a stale adopted record.
	restarted := recorded(t, adopted, changed)
	if d := Decide(restarted, changed); d.RecordedIn != RecordedInTemplate || d.Stale {
		t.Errorf("restarted after adopt: %s (recorded in %q)", d, d.RecordedIn)
	}
	bad := webDeployment()
	bad.Annotations = map[string]string{AdoptedAnnotation: "{"}
	if d := Decide(bad, baseObjects()); d.AnnotationErr == nil || !strings.Contains(d.AnnotationErr.Error(), AdoptedAnnotation) || !strings.Contains(d.String(), "malformed "+AdoptedAnnotation) {
		t.Errorf("malformed adopted annotation: %v / %s", d.AnnotationErr, d)
	}
}

func TestDecideAdoptedFillsKeysTheTemplateLacks(t *testing.T) {
	// Restarted with only configmap/app recorded, then secret/db and configmap/extra adopted.
	dep := webDeployment()
	all := Decide(dep, baseObjects()).Checksums
	dep.Spec.Template.Annotations = map[string]string{ChecksumsAnnotation: EncodeChecksums(map[string]string{"configmap/app": all["configmap/app"]})}
	dep.Annotations = map[string]string{AdoptedAnnotation: EncodeChecksums(map[string]string{"secret/db": all["secret/db"], "configmap/extra": all["configmap/extra"], "configmap/app": "old"})}
	d := Decide(dep, baseObjects())
	if d.RecordedIn != RecordedInTemplate || d.Stale || d.FirstSight() {
		t.Errorf("template plus adopted keys: %s (recorded in %q); want every reference current, the template's app winning over the adopted one", d, d.RecordedIn)
	}
}
