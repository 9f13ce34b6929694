package deployutil_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/deployutil"
)

// podTemplate is generatePodTemplateSpec of the upstream deployment_util_test.go.
func podTemplate(name, nodeName string, annotations, labels map[string]string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: annotations, Labels: labels},
		Spec:       corev1.PodSpec{NodeName: nodeName},
	}
}

// TestEqualIgnoreHash holds the cases of TestEqualIgnoreHash in
// pkg/controller/deployment/util/deployment_util_test.go, v1.36.3, run in both orders.
func TestEqualIgnoreHash(t *testing.T) {
	const hashKey = appsv1.DefaultDeploymentUniqueLabelKey
	none := map[string]string{}
	tests := []struct {
		name           string
		former, latter corev1.PodTemplateSpec
		want           bool
	}{
		{"same spec, same labels",
			podTemplate("foo", "foo-node", none, map[string]string{hashKey: "value-1", "something": "else"}),
			podTemplate("foo", "foo-node", none, map[string]string{hashKey: "value-1", "something": "else"}), true},
		{"same spec, only the pod-template-hash value differs",
			podTemplate("foo", "foo-node", none, map[string]string{hashKey: "value-1", "something": "else"}),
			podTemplate("foo", "foo-node", none, map[string]string{hashKey: "value-2", "something": "else"}), true},
		{"same spec, the former has no pod-template-hash",
			podTemplate("foo", "foo-node", none, map[string]string{"something": "else"}),
			podTemplate("foo", "foo-node", none, map[string]string{hashKey: "value-2", "something": "else"}), true},
		{"same number of labels, the former has no pod-template-hash",
			podTemplate("foo", "foo-node", none, map[string]string{"something": "else"}),
			podTemplate("foo", "foo-node", none, map[string]string{hashKey: "value-2"}), false},
		{"same number of labels, the latter has no pod-template-hash",
			podTemplate("foo", "foo-node", none, map[string]string{hashKey: "value-1"}),
			podTemplate("foo", "foo-node", none, map[string]string{"something": "else"}), false},
		{"another label differs, same pod-template-hash",
			podTemplate("foo", "foo-node", none, map[string]string{hashKey: "value-1"}),
			podTemplate("foo", "foo-node", none, map[string]string{hashKey: "value-1", "something": "else"}), false},
		{"different spec, same labels",
			podTemplate("foo", "foo-node", map[string]string{"former": "value"}, map[string]string{hashKey: "value-1", "something": "else"}),
			podTemplate("foo", "foo-node", map[string]string{"latter": "value"}, map[string]string{hashKey: "value-1", "something": "else"}), false},
		{"different spec, different pod-template-hash",
			podTemplate("foo-1", "foo-node", none, map[string]string{hashKey: "value-1", "something": "else"}),
			podTemplate("foo-2", "foo-node", none, map[string]string{hashKey: "value-2", "something": "else"}), false},
		{"different spec, the former has no pod-template-hash",
			podTemplate("foo-1", "foo-node-1", none, map[string]string{"something": "else"}),
			podTemplate("foo-2", "foo-node-2", none, map[string]string{hashKey: "value-2", "something": "else"}), false},
		{"different spec, different labels",
			podTemplate("foo", "foo-node-1", none, map[string]string{"something": "else"}),
			podTemplate("foo", "foo-node-2", none, map[string]string{"nothing": "else"}), false},
		{"a template whose only label is the hash equals one without labels",
			podTemplate("", "", nil, map[string]string{hashKey: "abc"}), corev1.PodTemplateSpec{}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, order := range []struct {
				name string
				a, b *corev1.PodTemplateSpec
			}{{"", &tc.former, &tc.latter}, {" (reverse order)", &tc.latter, &tc.former}} {
				aBefore, bBefore := order.a.DeepCopy(), order.b.DeepCopy()
				if got := deployutil.EqualIgnoreHash(order.a, order.b); got != tc.want {
					t.Errorf("EqualIgnoreHash%s = %v, want %v", order.name, got, tc.want)
				}
				if diff := cmp.Diff(aBefore, order.a); diff != "" {
					t.Errorf("EqualIgnoreHash%s modified its first argument (-before +after):\n%s", order.name, diff)
				}
				if diff := cmp.Diff(bBefore, order.b); diff != "" {
					t.Errorf("EqualIgnoreHash%s modified its second argument (-before +after):\n%s", order.name, diff)
				}
			}
		})
	}
}

func withRevision(v string, set bool) *appsv1.ReplicaSet {
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "rs-" + v}}
	if set {
		rs.Annotations = map[string]string{deployutil.RevisionAnnotation: v}
	}
	return rs
}

func TestRevision(t *testing.T) {
	tests := []struct {
		name    string
		obj     metav1.Object
		want    int64
		wantErr bool
	}{
		{"missing annotation is revision 0", withRevision("", false), 0, false},
		{"no annotations at all", &appsv1.Deployment{}, 0, false},
		{"a decimal", withRevision("3", true), 3, false},
		{"a Deployment's revision", &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{deployutil.RevisionAnnotation: "12"}}}, 12, false},
		{"negative parses", withRevision("-1", true), -1, false},
		{"leading zeros parse", withRevision("007", true), 7, false},
		{"empty value does not parse", withRevision("", true), 0, true},
		{"letters do not parse", withRevision("r3", true), 0, true},
		{"spaces do not parse", withRevision(" 3", true), 0, true},
		{"hexadecimal does not parse", withRevision("0x10", true), 0, true},
		{"int64 max parses", withRevision("9223372036854775807", true), 1<<63 - 1, false},
		{"beyond int64 does not parse", withRevision("9223372036854775808", true), 1<<63 - 1, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := deployutil.Revision(tc.obj)
			if got != tc.want || (err != nil) != tc.wantErr {
				t.Errorf("Revision = %d, %v; want %d, error %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
}

func TestMaxRevision(t *testing.T) {
	rs := func(revs ...string) []*appsv1.ReplicaSet {
		var out []*appsv1.ReplicaSet
		for _, r := range revs {
			out = append(out, withRevision(r, r != "none"))
		}
		return out
	}
	tests := []struct {
		name string
		rss  []*appsv1.ReplicaSet
		want int64
	}{
		{"no ReplicaSets", nil, 0},
		{"one", rs("4"), 4},
		{"highest wins regardless of order", rs("2", "7", "3"), 7},
		{"missing annotations count 0", rs("none", "none"), 0},
		{"unparsable revisions are skipped", rs("5", "x", "99999999999999999999"), 5},
		{"negative revisions never exceed 0", rs("-3"), 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := deployutil.MaxRevision(tc.rss); got != tc.want {
				t.Errorf("MaxRevision = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestSkipCopyAnnotation(t *testing.T) {
	tests := map[string]bool{
		corev1.LastAppliedConfigAnnotation:        true,
		deployutil.RevisionAnnotation:             true,
		deployutil.RevisionHistoryAnnotation:      true,
		deployutil.DesiredReplicasAnnotation:      true,
		deployutil.MaxReplicasAnnotation:          true,
		appsv1.DeprecatedRollbackTo:               true,
		"kubernetes.io/change-cause":              false,
		"deployment.kubernetes.io/something-else": false,
		"team":                              false,
		"":                                  false,
		"Deployment.kubernetes.io/revision": false,
		"kubectl.kubernetes.io/restartedAt": false,
		"deprecated.deployment.rollback.to.extra":    false,
		"kubectl.kubernetes.io/last-applied-config":  false,
		"deployment.kubernetes.io/revision-history/": false,
	}
	for key, want := range tests {
		if got := deployutil.SkipCopyAnnotation(key); got != want {
			t.Errorf("SkipCopyAnnotation(%q) = %v, want %v", key, got, want)
		}
	}
}

func TestSkippedAnnotations(t *testing.T) {
	in := map[string]string{
		corev1.LastAppliedConfigAnnotation: "{}",
		deployutil.RevisionAnnotation:      "3",
		deployutil.MaxReplicasAnnotation:   "13",
		"team":                             "x",
	}
	want := map[string]string{
		corev1.LastAppliedConfigAnnotation: "{}",
		deployutil.RevisionAnnotation:      "3",
		deployutil.MaxReplicasAnnotation:   "13",
	}
	if diff := cmp.Diff(want, deployutil.SkippedAnnotations(in)); diff != "" {
		t.Errorf("SkippedAnnotations (-want +got):\n%s", diff)
	}
	if got := deployutil.SkippedAnnotations(nil); got == nil || len(got) != 0 {
		t.Errorf("SkippedAnnotations(nil) = %#v, want an empty, non-nil map", got)
	}
}
