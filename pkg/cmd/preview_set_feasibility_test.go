package cmd

import (
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
)

// quotaStateFile writes a state file of shop/web (4 replicas, maxSurge 1, maxUnavailable 0,
// rolled out), a ResourceQuota of shop whose pods hard is used and a LimitRange without
// defaults (the quota check needs to know there is none).
func quotaStateFile(t *testing.T, hardPods string) string {
	t.Helper()
	web := testutil.Deployment("web").Namespace("shop").Replicas(4).MaxSurge("1").MaxUnavailable("0").Image("nginx:1.19").Revision(1).Status(4, 4, 4, 4).Build()
	rs := testutil.ReplicaSetFor(web).Created(1).Replicas(4).Build()
	hard := corev1.ResourceList{corev1.ResourcePods: resource.MustParse(hardPods)}
	q := &corev1.ResourceQuota{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ResourceQuota"}, ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "pods"},
		Spec:   corev1.ResourceQuotaSpec{Hard: hard},
		Status: corev1.ResourceQuotaStatus{Hard: hard, Used: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("4")}}}
	lr := &corev1.LimitRange{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "LimitRange"}, ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "none"}}
	var docs []string
	for _, obj := range []any{web, rs, q, lr} {
		b, err := yaml.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(b))
	}
	return writeFile(t, t.TempDir(), "state.yaml", strings.Join(docs, "---\n"))
}

const quotaWebManifest = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 4
  selector: {matchLabels: {app: web}}
  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: "nginx:1.27"}]}
`

// A manifest set previewed offline runs the feasibility checks on the state file's objects:
// the update of web and the create of fresh find no room in the pods quota (Stalled at step
// 1, in the human plan, the FEASIBILITY column and -o json), --fail-on-stall exits 3, and
// --checks=none prints the set as before.
func TestPreviewManifestSetFeasibility(t *testing.T) {
	state := quotaStateFile(t, "4")
	dir := t.TempDir()
	writeFile(t, dir, "a-web.yaml", quotaWebManifest)
	writeFile(t, dir, "b-fresh.yaml", strings.Replace(freshManifest, "name: fresh}", "name: fresh, namespace: shop}", 1))
	args := []string{"preview", "-n", "shop", "-f", dir, "--state-file", state}

	out, errOut, code := runRoot(t, "", append(args, "--fail-on-stall")...)
	if code != ExitStalled {
		t.Errorf("--fail-on-stall: exit %d (stderr %q), want %d", code, errOut, ExitStalled)
	}
	lines := strings.Split(out, "\n")
	if !strings.HasSuffix(strings.Join(strings.Fields(lines[0]), " "), "OUTCOME SOURCE FEASIBILITY") ||
		!strings.HasSuffix(strings.TrimSpace(lines[1]), "Stalled@1:Quota") || !strings.HasSuffix(strings.TrimSpace(lines[2]), "Stalled@1:Quota") {
		t.Errorf("summary: want a FEASIBILITY column, both rows stalled by the quota:\n%s", out)
	}
	if n := strings.Count(out, "Stalled at step 1: Quota: "); n != 2 || strings.Count(out, "FINDINGS") != 2 || !strings.Contains(out, "resourcequota/pods") {
		t.Errorf("want each plan's FINDINGS block and outcome line (got %d outcome lines):\n%s", n, out)
	}

	out, _, _ = runRoot(t, "", append(args, "-o", "json", "--checks=quota")...)
	var l v1alpha1.RolloutPlanList
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != 2 {
		t.Fatalf("want 2 plans:\n%s", out)
	}
	for _, p := range l.Items {
		if f := p.Feasibility; f == nil || f.Stall == nil || f.Stall.Step != 1 || f.Stall.Reason != "Quota" {
			t.Errorf("%s: feasibility %+v, want a Quota stall at step 1", p.Deployment.Name, f)
		}
	}

	out, _, code = runRoot(t, "", append(args, "--checks=none", "--fail-on-stall")...)
	if code != ExitOK || strings.Contains(out, "FEASIBILITY") || strings.Contains(out, "Stalled at") {
		t.Errorf("--checks=none: exit %d, output:\n%s", code, out)
	}

	// Room for the surge pod and the new Deployment's three: nothing to say, the set prints
	// as before the checks.
	out, _, code = runRoot(t, "", "preview", "-n", "shop", "-f", dir, "--state-file", quotaStateFile(t, "9"))
	if code != ExitOK || strings.Contains(out, "FEASIBILITY") || strings.Contains(out, "FINDINGS") {
		t.Errorf("quota with room: exit %d, output:\n%s", code, out)
	}
}
