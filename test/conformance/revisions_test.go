package conformance

import (
	"fmt"
	"math/rand"
	"testing"

	apps "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/controller"
	"k8s.io/kubernetes/pkg/controller/daemon"
	"k8s.io/kubernetes/pkg/controller/history"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/planner/revisions"
)

// randomTemplate returns a pod template with fields that exercise the encoding: labels,
// annotations, quantities, ports, env, a nil-vs-empty slice, long names.
func randomTemplate(r *rand.Rand) corev1.PodTemplateSpec {
	t := corev1.PodTemplateSpec{}
	t.Labels = map[string]string{"app": fmt.Sprint("a", r.Intn(5))}
	if r.Intn(2) == 0 {
		t.Annotations = map[string]string{"restartedAt": fmt.Sprint("2026-01-0", r.Intn(9)+1)}
	}
	for i := 0; i < 1+r.Intn(3); i++ {
		c := corev1.Container{Name: fmt.Sprint("c", i), Image: fmt.Sprintf("img:%d", r.Intn(1000))}
		if r.Intn(2) == 0 {
			c.Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(fmt.Sprintf("%dm", r.Intn(4000))), corev1.ResourceMemory: resource.MustParse(fmt.Sprintf("%dMi", r.Intn(9000)))}
		}
		if r.Intn(2) == 0 {
			c.Ports = []corev1.ContainerPort{{ContainerPort: int32(r.Intn(65535)), Protocol: corev1.ProtocolTCP}}
		}
		if r.Intn(3) == 0 {
			c.Env = []corev1.EnvVar{{Name: "N", Value: fmt.Sprint(r.Float64())}}
		}
		t.Spec.Containers = append(t.Spec.Containers, c)
	}
	if r.Intn(2) == 0 {
		t.Spec.TerminationGracePeriodSeconds = ptr.To(int64(r.Intn(1 << 40)))
	}
	return t
}

// TestRevisionsConformance compares pkg/planner/revisions with the upstream history package
// and the DaemonSet controller's exported Match on generated pod templates and collision
// counts: the patch bytes (daemon.Match against our Patch), HashControllerRevision,
// ControllerRevisionName, controller.ComputeHash and EqualRevision. The StatefulSet side's
// getPatch (patchCodec) is compared in TestStatefulSetConformance through the copied package.
func TestRevisionsConformance(t *testing.T) {
	r := rand.New(rand.NewSource(*flagSeed))
	const n = 2000
	mismatches := 0
	for i := 0; i < n; i++ {
		tmpl := randomTemplate(r)
		var cc *int32
		if r.Intn(2) == 0 {
			cc = ptr.To(int32(r.Intn(20)))
		}
		patch, err := revisions.Patch(&tmpl)
		if err != nil {
			t.Fatal(err)
		}
		ds := &apps.DaemonSet{Spec: apps.DaemonSetSpec{Template: tmpl}}
		ds.Name = "ds"
		cr := &apps.ControllerRevision{Data: runtime.RawExtension{Raw: patch}}
		if ok, err := daemon.Match(ds, cr); err != nil || !ok {
			mismatches++
			t.Errorf("case %d: upstream getPatch differs from Patch %s", i, patch)
		}
		if got, want := revisions.Hash(patch, cc), history.HashControllerRevision(cr, cc); got != want {
			mismatches++
			t.Errorf("case %d: Hash %s, upstream %s", i, got, want)
		}
		prefix := fmt.Sprintf("%0*d", r.Intn(260), 7)
		if got, want := revisions.Name(prefix, "h"), history.ControllerRevisionName(prefix, "h"); got != want {
			mismatches++
			t.Errorf("case %d: Name %s, upstream %s", i, got, want)
		}
		if got, want := revisions.DaemonSetHash(&tmpl, cc), controller.ComputeHash(&tmpl, cc); got != want {
			mismatches++
			t.Errorf("case %d: DaemonSetHash %s, upstream %s", i, got, want)
		}
		other := &apps.ControllerRevision{Data: runtime.RawExtension{Raw: []byte(string(patch) + " ")}}
		if revisions.Equal(cr, other) != history.EqualRevision(cr, other) || !revisions.Equal(cr, cr.DeepCopy()) {
			mismatches++
			t.Errorf("case %d: Equal differs from EqualRevision", i)
		}
	}
	t.Logf("revisions: %d templates, %d mismatches", n, mismatches)
}
