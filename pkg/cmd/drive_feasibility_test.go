package cmd

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/pkg/drive"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// TestDriveFailOnStallQuota: 3 replicas, 25%/25% (1 surge pod, 0 unavailable) and a pods
// quota used to its hard 3: drive --fail-on-stall prints the plan, the FINDINGS block and
// "Stalled at step 1: Quota", exits 3 naming the quota, and writes nothing (the server dry
// run of the change aside): no takeover, no drive annotation. Without --fail-on-stall the
// same stall is printed and a dry run goes on (exit 0); --checks=none prints nothing of it.
func TestDriveFailOnStallQuota(t *testing.T) {
	cases := []struct {
		name        string
		checks      string
		failOnStall bool
		dryRun      cmdutil.DryRunStrategy
		wantCode    int
		wantStall   bool
	}{
		{"fail-on-stall", "all", true, cmdutil.DryRunNone, ExitStalled, true},
		{"warning only, dry run", "all", false, cmdutil.DryRunClient, ExitOK, true},
		{"checks none", "none", true, cmdutil.DryRunClient, ExitOK, false},
		{"capacity only", "capacity", true, cmdutil.DryRunClient, ExitOK, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, rss := webFixture()
			c := fakeClient(d, rss)
			q := &corev1.ResourceQuota{
				ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "pods"},
				Spec:       corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("3")}},
				Status: corev1.ResourceQuotaStatus{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("3")},
					Used: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("3")}},
			}
			if err := c.Tracker().Add(q); err != nil {
				t.Fatal(err)
			}
			// A server dry run answers with the object and stores nothing (the fake stores it).
			c.PrependReactor("update", "deployments", func(a k8stesting.Action) (bool, runtime.Object, error) {
				u := a.(k8stesting.UpdateActionImpl)
				return len(u.UpdateOptions.DryRun) > 0, u.GetObject(), nil
			})
			streams, out, errOut := testStreams()
			o := NewDriveOptions(streams)
			o.Target = Target{Ref: target.Ref{Namespace: "default", Name: "web"}, Client: clientOf(c)}
			o.Change.Images = []string{"web=nginx:1.21"}
			o.Checks, o.FailOnStall, o.DryRun, o.Yes = tc.checks, tc.failOnStall, tc.dryRun, true
			o.Terminal = func() bool { return false }
			o.Now = func() time.Time { return time.Date(2024, 1, 1, 1, 0, 0, 0, time.UTC) }
			if err := o.Validate(); err != nil {
				t.Fatal(err)
			}
			code, msg := exit(o.Run)
			if code != tc.wantCode {
				t.Fatalf("exit %d (%s), want %d; stdout:\n%s\nstderr:\n%s", code, msg, tc.wantCode, out, errOut)
			}
			stall := "Stalled at step 1: Quota: "
			if got := strings.Contains(out.String(), stall) && strings.Contains(out.String(), "FINDINGS"); got != tc.wantStall {
				t.Errorf("stall printed %v, want %v; stdout:\n%s", got, tc.wantStall, out)
			}
			if tc.wantStall && !strings.Contains(out.String(), "resourcequota/pods") {
				t.Errorf("the finding does not name resourcequota/pods:\n%s", out)
			}
			if i, j := strings.Index(out.String(), "then: hand back"), strings.Index(out.String(), "FINDINGS"); tc.wantStall && (i < 0 || j < i) {
				t.Errorf("FINDINGS not under the plan:\n%s", out)
			}
			warned := strings.Contains(errOut.String(), "warning: the checks predict the plan stalls at step 1 (Quota: resourcequota/pods)")
			if want := tc.wantStall && !tc.failOnStall; warned != want {
				t.Errorf("stall warning on stderr %v, want %v:\n%s", warned, want, errOut)
			}
			if tc.wantCode == ExitStalled && !strings.Contains(msg, "resourcequota/pods") {
				t.Errorf("error %q does not name the quota", msg)
			}
			for _, a := range writes(c) {
				if u, ok := a.(k8stesting.UpdateAction); ok && len(u.(k8stesting.UpdateActionImpl).UpdateOptions.DryRun) > 0 {
					continue
				}
				t.Errorf("write %s %s", a.GetVerb(), a.GetResource().Resource)
			}
			got, err := c.AppsV1().Deployments("default").Get(t.Context(), "web", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if _, held := got.Annotations[drive.Annotation]; held || got.Spec.Paused {
				t.Errorf("deployment taken over: paused %v, annotations %v", got.Spec.Paused, got.Annotations)
			}
		})
	}
}
