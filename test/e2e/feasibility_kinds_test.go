//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// A StatefulSet of 2 pods requesting 100m cpu each under a requests.cpu quota of 250m: a
// manifest raising the request to 200m is predicted to stall at the sync that recreates
// db-1 (deleting db-1 frees 100m; its 200m create exceeds 250m), with quota admission's
// message; applied, the StatefulSet controller's FailedCreate event carries that message.
func TestFeasibilityKindsStatefulSetQuota(t *testing.T) {
	t.Parallel()
	c := framework.Get(t)
	ns := c.Namespace(t)
	createCPUQuota(t, c, ns, "250m")
	waitQuotaUsed(t, c, ns, "cpu", 0, 30*time.Second)
	sts := func(cpu string) *appsv1.StatefulSet {
		tmpl := kindsPodTemplate("db", "nginx:1.18")
		tmpl.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}
		return &appsv1.StatefulSet{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "StatefulSet"},
			ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: ns},
			Spec: appsv1.StatefulSetSpec{Replicas: ptr.To[int32](2), ServiceName: "db", Template: tmpl,
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}}}
	}
	if _, err := c.Client.AppsV1().StatefulSets(ns).Create(t.Context(), sts("100m"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kindRolledOut(t, c, ns, "sts/db")
	waitQuotaUsed(t, c, ns, "cpu", 2, 60*time.Second)

	file := filepath.Join(t.TempDir(), "db.yaml")
	data, err := yaml.Marshal(sts("200m"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	res := c.Plugin(t, "preview", "-f", file, "--checks", "quota", "--fail-on-stall")
	t.Logf("preview: exit %d\n%s%s", res.ExitCode, res.Stdout, res.Stderr)
	want := "exceeded quota: cpu, requested: requests.cpu=200m, used: requests.cpu=100m, limited: requests.cpu=250m"
	if res.ExitCode != 3 || !strings.Contains(res.Stdout, "the create of pod db-1 is refused: "+want) ||
		!strings.Contains(res.Stdout, "Outcome: Stalled at sync") || !strings.Contains(res.Stdout, "Stalled@") {
		t.Fatalf("preview: exit %d, want 3, a Quota stall at the create of db-1: %q", res.ExitCode, want)
	}
	if a := c.Kubectl(t, "apply", "-f", file); a.ExitCode != 0 {
		t.Fatalf("kubectl apply: %s", a.Stderr)
	}
	deadline := time.Now().Add(60 * time.Second)
	for last := ""; ; time.Sleep(500 * time.Millisecond) {
		evs, err := c.Client.CoreV1().Events(ns).List(t.Context(), metav1.ListOptions{FieldSelector: "involvedObject.name=db,reason=FailedCreate"})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs.Items {
			last = e.Message
			if strings.Contains(e.Message, `"db-1"`) && strings.Contains(e.Message, want) {
				t.Logf("live: %s", e.Message)
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no FailedCreate event of db-1 with %q after 60s (last: %q)", want, last)
		}
	}
}

// A DaemonSet on a private node (4 cpu) whose pod requests 3 cpu, with maxSurge 1: the new
// pod is created beside the old one and fits no node; preview predicts the stall with the
// scheduler's words, and the live surge pod is Pending with the same message. Not parallel:
// the private node changes every scheduler message's node count.
func TestFeasibilityKindsDaemonSetSurge(t *testing.T) {
	c := framework.Get(t)
	ns := c.Namespace(t)
	node := "feas-ds-" + ns[len(ns)-5:]
	c.PrivateNode(t, node)
	tmpl := kindsPodTemplate("agent", "nginx:1.18")
	tmpl.Spec.NodeSelector, tmpl.Spec.Tolerations = nil, nil
	framework.PrivateNodeTemplate(&tmpl, node)
	tmpl.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3")}
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: ns}, Spec: appsv1.DaemonSetSpec{
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "agent"}}, Template: tmpl,
		UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType, RollingUpdate: &appsv1.RollingUpdateDaemonSet{
			MaxSurge: ptr.To(intstr.FromInt32(1)), MaxUnavailable: ptr.To(intstr.FromInt32(0))}}}}
	if _, err := c.Client.AppsV1().DaemonSets(ns).Create(t.Context(), ds, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kindRolledOut(t, c, ns, "ds/agent")
	res := c.Plugin(t, "preview", "ds/agent", "-n", ns, "--image", "app=nginx:1.19", "--checks", "capacity", "--fail-on-stall")
	t.Logf("preview: exit %d\n%s%s", res.ExitCode, res.Stdout, res.Stderr)
	lead := fmt.Sprintf("the create of the new pod on node %s stays Pending: ", node)
	i := strings.Index(res.Stdout, lead)
	if res.ExitCode != 3 || i < 0 {
		t.Fatalf("preview: exit %d, want 3 and %q", res.ExitCode, lead)
	}
	predicted := strings.TrimSuffix(strings.SplitN(res.Stdout[i+len(lead):], "\n", 2)[0], ".")
	if !strings.Contains(predicted, "1 Insufficient cpu") {
		t.Fatalf("predicted %q does not name Insufficient cpu", predicted)
	}
	setKindImage(t, c, ns, "ds", "agent", "nginx:1.19")
	waitPodUnschedulable(t, c, ns, 60*time.Second, predicted)
}
