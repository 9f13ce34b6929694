package deployutil_test

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/deployutil"
)

// TestEqualIgnoreHashDeploymentTemplates runs EqualIgnoreHash on server-defaulted templates
// as the builders make them.
func TestEqualIgnoreHashDeploymentTemplates(t *testing.T) {
	base := testutil.Deployment("web").Build().Spec.Template
	withHash := func(t corev1.PodTemplateSpec, h string) *corev1.PodTemplateSpec {
		t = *t.DeepCopy()
		t.Labels[appsv1.DefaultDeploymentUniqueLabelKey] = h
		return &t
	}
	otherImage := testutil.Deployment("web").Image("nginx:1.19").Build().Spec.Template
	relabeled := *base.DeepCopy()
	relabeled.Labels["tier"] = "web"
	onlyHash := &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{appsv1.DefaultDeploymentUniqueLabelKey: "abc"}}}
	tests := []struct {
		name string
		a, b *corev1.PodTemplateSpec
		want bool
	}{
		{"same template", &base, &base, true},
		{"only the pod-template-hash differs", withHash(base, "abc"), withHash(base, "xyz"), true},
		{"hash on one side only", withHash(base, "abc"), &base, true},
		{"a template whose only label is the hash equals one without labels", onlyHash, &corev1.PodTemplateSpec{}, true},
		{"another image", &base, &otherImage, false},
		{"another label differs besides the hash", withHash(base, "abc"), &relabeled, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := deployutil.EqualIgnoreHash(tc.a, tc.b); got != tc.want {
				t.Errorf("EqualIgnoreHash = %v, want %v", got, tc.want)
			}
		})
	}
}
