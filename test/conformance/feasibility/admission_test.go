package feasibility

import (
	"math/rand"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/resourcequota"
	"k8s.io/kubernetes/pkg/quota/v1/evaluator/core"
	"k8s.io/utils/clock"

	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
)

// TestQuotaAdmission: quota admission's own CheckRequest on creating a pod (from a random
// template, defaulted as upstreamPod does) in a namespace of 1-3 random quotas with random
// usage admits exactly when feasibility.AdmitPod does, with the same message.
func TestQuotaAdmission(t *testing.T) {
	rng := rand.New(rand.NewSource(*flagSeed + 2))
	eval := core.NewPodEvaluator(nil, clock.RealClock{})
	cases, refused, mismatches := 0, 0, 0
	for i := range *flagN {
		template := randomTemplate(rng)
		lrs := randomLimitRanges(rng)
		up := upstreamPod(t, template, lrs)
		up.Name = "web-1"
		var quotas []corev1.ResourceQuota
		for j := range 1 + rng.Intn(3) {
			q := randomQuota(rng)
			q.Name = string(rune('a' + j))
			q.Status.Used = corev1.ResourceList{}
			for _, n := range quotaNames {
				if _, ok := q.Status.Hard[n]; !ok {
					continue
				}
				q.Status.Used[n] = resource.MustParse(pick(rng, "0", "1", "5", "9", "9500m", "10", "11"))
			}
			quotas = append(quotas, *q)
		}
		attrs := admission.NewAttributesRecord(up, nil, corev1.SchemeGroupVersion.WithKind("Pod"), "default", up.Name,
			corev1.SchemeGroupVersion.WithResource("pods"), "", admission.Create, &metav1.CreateOptions{}, false, nil)
		want := ""
		if _, err := resourcequota.CheckRequest(quotas, attrs, eval, nil); err != nil {
			want = err.Error()
			if _, after, ok := strings.Cut(want, " is forbidden: "); ok {
				want = after
			}
			refused++
		}
		got := feasibility.AdmitPod(quotas, feasibility.PodFromTemplate("default", template, lrs))
		cases++
		if got != want {
			mismatches++
			if mismatches <= 5 {
				t.Errorf("case %d: upstream %q\nours     %q\nquotas %s\npod %s", i, want, got, dump(quotas), dump(up.Spec))
			}
		}
	}
	t.Logf("quota admission: %d cases (%d refused, %d admitted), %d mismatches", cases, refused, cases-refused, mismatches)
	if mismatches > 0 {
		t.Errorf("%d mismatches of %d", mismatches, cases)
	}
}
