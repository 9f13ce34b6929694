package revisions

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/utils/ptr"
)

func sts(image string, collisions *int32, current string) *appsv1.StatefulSet {
	s := &appsv1.StatefulSet{}
	s.Name, s.Namespace = "web", "ns"
	s.Spec.Template.Labels = map[string]string{"app": "web"}
	s.Spec.Template.Spec.Containers = []corev1.Container{{Name: "c", Image: image}}
	s.Status.CollisionCount = collisions
	s.Status.CurrentRevision = current
	return s
}

func rev(t *testing.T, image string, number int64) *appsv1.ControllerRevision {
	t.Helper()
	p, err := Patch(&sts(image, nil, "").Spec.Template)
	if err != nil {
		t.Fatal(err)
	}
	r := &appsv1.ControllerRevision{Revision: number, Data: runtimeRaw(p)}
	r.Name = Name("web", Hash(p, ptr.To[int32](0)))
	return r
}

func TestPatchShape(t *testing.T) {
	p, err := Patch(&sts("nginx:1", nil, "").Spec.Template)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]map[string]map[string]interface{}
	if err := json.Unmarshal(p, &got); err != nil {
		t.Fatal(err)
	}
	if got["spec"]["template"]["$patch"] != "replace" {
		t.Errorf("patch %s: no $patch replace", p)
	}
	if !strings.HasPrefix(string(p), `{"spec":{"template":{"$patch":"replace","metadata":`) {
		t.Errorf("patch %s: keys not sorted as json.Marshal of a map sorts them", p)
	}
	tmpl, err := Template(p)
	if err != nil {
		t.Fatal(err)
	}
	if tmpl.Spec.Containers[0].Image != "nginx:1" {
		t.Errorf("Template(Patch) image = %q", tmpl.Spec.Containers[0].Image)
	}
}

func TestHashIsFNV1WithDecimalProbe(t *testing.T) {
	data := []byte(`{"spec":{}}`)
	h := fnv.New32()
	h.Write(data)
	h.Write([]byte("12"))
	if got, want := Hash(data, ptr.To[int32](12)), rand.SafeEncodeString(fmt.Sprint(h.Sum32())); got != want {
		t.Errorf("Hash = %s, want %s", got, want)
	}
	if Hash(data, nil) == Hash(data, ptr.To[int32](0)) {
		t.Error("a nil collision count must hash differently from 0 (the probe \"0\" is written)")
	}
	if got := Name(strings.Repeat("a", 300), "h"); len(got) != 225 {
		t.Errorf("Name of a long prefix has %d bytes, want 223+2", len(got))
	}
}

func TestResolveStatefulSet(t *testing.T) {
	v1, v2 := rev(t, "v1", 1), rev(t, "v2", 2)
	cases := []struct {
		name        string
		set         *appsv1.StatefulSet
		revisions   []*appsv1.ControllerRevision
		wantAction  Action
		wantUpdate  string
		wantNumber  int64
		wantCurrent string
		wantCount   int32
	}{
		{"first sync creates revision 1", sts("v1", nil, ""), nil, Created, v1.Name, 1, v1.Name, 0},
		{"unchanged template keeps the latest", sts("v2", nil, v1.Name), []*appsv1.ControllerRevision{v1, v2}, Unchanged, v2.Name, 2, v1.Name, 0},
		{"rollback reuses revision 1 renumbered to 3", sts("v1", nil, v2.Name), []*appsv1.ControllerRevision{v1, v2}, Reused, v1.Name, 3, v2.Name, 0},
		{"new template is revision 3", sts("v3", nil, v2.Name), []*appsv1.ControllerRevision{v1, v2}, Created, rev(t, "v3", 3).Name, 3, v2.Name, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := ResolveStatefulSet(tc.set, tc.revisions)
			if err != nil {
				t.Fatal(err)
			}
			got := []interface{}{res.Action, res.Update.Name, res.Update.Revision, res.Current.Name, res.CollisionCount}
			want := []interface{}{tc.wantAction, tc.wantUpdate, tc.wantNumber, tc.wantCurrent, tc.wantCount}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
	if v1.Revision != 1 {
		t.Error("ResolveStatefulSet modified its input")
	}
}

func TestResolveStatefulSetCollision(t *testing.T) {
	set := sts("v2", nil, "")
	p, _ := Patch(&set.Spec.Template)
	squatter := rev(t, "other", 1)
	squatter.Name = Name("web", Hash(p, ptr.To[int32](0))) // the name v2 would get, other data
	res, err := ResolveStatefulSet(set, []*appsv1.ControllerRevision{squatter})
	if err != nil {
		t.Fatal(err)
	}
	if res.CollisionCount != 1 || res.Update.Name != Name("web", Hash(p, ptr.To[int32](1))) || res.Update.Revision != 2 {
		t.Errorf("collision: count %d name %s number %d", res.CollisionCount, res.Update.Name, res.Update.Revision)
	}
	if res.Update.Labels["controller.kubernetes.io/hash"] != Hash(p, ptr.To[int32](1)) || res.Update.Labels["app"] != "web" {
		t.Errorf("labels %v", res.Update.Labels)
	}
}

func TestTruncateStatefulSet(t *testing.T) {
	var revs []*appsv1.ControllerRevision
	for i := int64(1); i <= 5; i++ {
		revs = append(revs, &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("r", i)}, Revision: i})
	}
	names := func(rs []*appsv1.ControllerRevision) (out []string) {
		for _, r := range rs {
			out = append(out, r.Name)
		}
		return out
	}
	// live: r4 (current), r5 (update), r2 (a pod still runs it); history r1, r3; limit 1 deletes r1.
	if got := names(TruncateStatefulSet(revs, "r4", "r5", []string{"r2"}, ptr.To[int32](1))); !cmp.Equal(got, []string{"r1"}) {
		t.Errorf("limit 1: %v", got)
	}
	if got := TruncateStatefulSet(revs, "r4", "r5", nil, ptr.To[int32](-1)); got != nil {
		t.Errorf("negative limit deletes %v", names(got))
	}
	if got := names(TruncateStatefulSet(revs, "r4", "r5", nil, ptr.To[int32](0))); !cmp.Equal(got, []string{"r1", "r2", "r3"}) {
		t.Errorf("limit 0: %v", got)
	}
}

func TestResolveDaemonSet(t *testing.T) {
	ds := func(image string) *appsv1.DaemonSet {
		d := &appsv1.DaemonSet{}
		d.Name = "agent"
		d.Spec.Template = sts(image, nil, "").Spec.Template
		return d
	}
	mk := func(image string, n int64) *appsv1.ControllerRevision {
		d := ds(image)
		p, _ := Patch(&d.Spec.Template)
		h := DaemonSetHash(&d.Spec.Template, nil)
		return &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: DaemonSetName("agent", h), Labels: map[string]string{appsv1.DefaultDaemonSetUniqueLabelKey: h}}, Revision: n, Data: runtimeRaw(p)}
	}
	a, b := mk("v1", 1), mk("v2", 2)
	res, err := ResolveDaemonSet(ds("v1"), []*appsv1.ControllerRevision{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if res.Action != Reused || res.Current.Name != a.Name || res.Current.Revision != 3 || len(res.Old) != 1 {
		t.Errorf("rollback: %s %s %d old %d", res.Action, res.Current.Name, res.Current.Revision, len(res.Old))
	}
	res, _ = ResolveDaemonSet(ds("v3"), []*appsv1.ControllerRevision{a, b})
	if res.Action != Created || res.Current.Revision != 3 || !strings.HasPrefix(res.Current.Name, "agent-") {
		t.Errorf("new: %s %s %d", res.Action, res.Current.Name, res.Current.Revision)
	}
	squat := mk("v3", 1)
	squat.Data = a.Data
	res, _ = ResolveDaemonSet(ds("v3"), []*appsv1.ControllerRevision{squat})
	if !res.Collision {
		t.Error("a taken name with other data is not a collision")
	}
	// cleanup: limit 0, old a (live: a pod carries its hash) and b: only b goes.
	got := CleanupDaemonSet([]*appsv1.ControllerRevision{b, a}, map[string]bool{a.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]: true}, ptr.To[int32](0))
	if len(got) != 1 || got[0].Name != b.Name {
		t.Errorf("cleanup: %v", got)
	}
}
