package cmd

import (
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
)

// A restart in a namespace whose pods quota is used up (web and api: 6 pods of 6) cannot
// create its surge pod and, with maxUnavailable 25% of 3 = 0, stalls at step 1: reload
// shows it in the table, under the restart's plan and in -o json; --checks=none does not.
func TestReloadFeasibilityQuotaStall(t *testing.T) {
	run := func(output, checks string) string {
		t.Helper()
		o, c, out, errOut := newReloadTest(t, true, "deploy/web", "deploy/api")
		hard := corev1.ResourceList{corev1.ResourcePods: resource.MustParse("6")}
		for _, obj := range []runtime.Object{
			&corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Namespace: testutil.DefaultNamespace, Name: "pods"},
				Spec: corev1.ResourceQuotaSpec{Hard: hard}, Status: corev1.ResourceQuotaStatus{Hard: hard, Used: hard}},
			&corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Namespace: testutil.DefaultNamespace, Name: "none"}},
		} {
			if err := c.Tracker().Add(obj); err != nil {
				t.Fatal(err)
			}
		}
		o.DryRun, o.Output.Output, o.Checks = cmdutil.DryRunClient, output, checks
		if err := o.Validate(); err != nil {
			t.Fatal(err)
		}
		if err := o.Run(t.Context()); err != nil {
			t.Fatalf("%v: %s", err, errOut)
		}
		return out.String()
	}
	out := run("", "all")
	lines := strings.Split(out, "\n")
	if !strings.HasSuffix(strings.TrimSpace(lines[0]), "FEASIBILITY") {
		t.Errorf("table: want a FEASIBILITY column:\n%s", out)
	}
	for _, want := range []string{"Stalled@1:Quota", "FINDINGS", "resourcequota/pods", "Stalled at step 1: Quota: "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	var l v1alpha1.RolloutPlanList
	if err := json.Unmarshal([]byte(run("json", "quota")), &l); err != nil {
		t.Fatal(err)
	}
	for _, p := range l.Items {
		f := p.Feasibility
		switch p.Deployment.Name {
		case "web":
			if f == nil || f.Stall == nil || f.Stall.Step != 1 || f.Stall.Reason != "Quota" {
				t.Errorf("web: feasibility %+v, want a Quota stall at step 1", f)
			}
		default:
			if f != nil {
				t.Errorf("%s is not restarted: feasibility %+v, want none", p.Deployment.Name, f)
			}
		}
	}

	if out := run("", "none"); strings.Contains(out, "FEASIBILITY") || strings.Contains(out, "Stalled at") {
		t.Errorf("--checks=none:\n%s", out)
	}
}

// The config restarts a preview of a ConfigMap manifest shows are checked as reload's are:
// api (3 replicas, maxUnavailable 25% = 0) cannot get its surge pod past a used-up pods
// quota; --fail-on-stall exits 3; in a set with a Deployment, the config restart's stall
// counts too.
func TestPreviewConfigRestartFeasibility(t *testing.T) {
	hard := corev1.ResourceList{corev1.ResourcePods: resource.MustParse("6")}
	objs := []runtime.Object{
		&corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Namespace: testutil.DefaultNamespace, Name: "pods"},
			Spec: corev1.ResourceQuotaSpec{Hard: hard}, Status: corev1.ResourceQuotaStatus{Hard: hard, Used: hard}},
		&corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Namespace: testutil.DefaultNamespace, Name: "none"}},
	}
	failOnStall := func(o *PreviewOptions) { o.FailOnStall = true }
	dir := t.TempDir()
	writeFile(t, dir, "config.yaml", mixedConfigManifest)
	_, out, errOut, code, msg := previewConfigSetIn(t, dir, "", failOnStall, objs...)
	if code != ExitStalled || strings.Count(out.String(), "Stalled at step 1: Quota: ") != 2 || !strings.Contains(out.String(), "Stalled@1:Quota") {
		t.Errorf("config preview: exit %d (%s%s), want %d and both restarts stalled by the quota:\n%s", code, msg, errOut, ExitStalled, out)
	}
	_, out, _, code, _ = previewConfigSetIn(t, dir, "", func(o *PreviewOptions) { o.FailOnStall, o.Checks = true, "none" }, objs...)
	if code != ExitOK || strings.Contains(out.String(), "Stalled at") {
		t.Errorf("--checks=none: exit %d:\n%s", code, out)
	}

	writeFile(t, dir, "web.yaml", mixedWebManifest)
	_, out, _, code, _ = previewConfigSetIn(t, dir, "json", failOnStall, objs...)
	var l v1alpha1.RolloutPlanList
	if err := json.Unmarshal(out.Bytes(), &l); err != nil {
		t.Fatal(err)
	}
	for _, p := range l.Items {
		if f := p.Feasibility; f == nil || f.Stall == nil || f.Stall.Reason != "Quota" {
			t.Errorf("%s (%s): feasibility %+v, want a Quota stall", p.Deployment.Name, p.Manifest.Change, f)
		}
	}
	if code != ExitStalled || len(l.Items) != 2 {
		t.Errorf("set: exit %d, %d items; want %d, web's plan and api's config restart", code, len(l.Items), ExitStalled)
	}
}
