//go:build e2e

package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// TestKindsStatusQuotaRefusal: StatefulSet db (2 pods without requests, Parallel), then a
// LimitRange defaulting cpu requests to 200m and a requests.cpu quota of 250m, then a new
// image: the controller replaces db-1 (200m charged), deletes db-0, and the API server
// refuses db-0's replacement. `status sts/db` names the refusal in the words of the
// controller's FailedCreate event, the checks predict it on the remaining plan, and there is
// no ETA; -o json carries the same; --fail-fast exits 6 as Deployment status does.
func TestKindsStatusQuotaRefusal(t *testing.T) {
	t.Parallel()
	c := framework.Get(t)
	ns := c.Namespace(t)
	stsUnderCPUQuota(t, c, ns)
	setKindImage(t, c, ns, "sts", "db", "nginx:1.19")
	event := waitFailedCreate(t, c, ns, "StatefulSet", "db", 40*time.Second)
	if !strings.Contains(event, "exceeded quota: cpu") {
		t.Fatalf("the controller's FailedCreate event %q does not name the quota", event)
	}
	var res framework.Result
	deadline := time.Now().Add(20 * time.Second)
	for {
		res = c.Plugin(t, "status", "sts/db", "-n", ns)
		if strings.Contains(res.Stdout, "not progressing: FailedCreate (1 pod not created): "+event) || time.Now().After(deadline) {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Logf("status sts/db: exit %d\n%s%s", res.ExitCode, res.Stdout, res.Stderr)
	for _, want := range []string{"not progressing: FailedCreate (1 pod not created): " + event, "Will stall at ", "exceeded quota: cpu",
		"eta: none: the rollout does not progress (FailedCreate"} {
		if !strings.Contains(res.Stdout, want) {
			t.Errorf("status sts/db: no %q", want)
		}
	}
	if res.ExitCode != 0 {
		t.Errorf("status sts/db: exit %d, want 0 (a rollout in progress, as Deployment status without --fail-fast)", res.ExitCode)
	}
	js := c.Plugin(t, "status", "sts/db", "-n", ns, "-o", "json")
	var s v1alpha1.WorkloadStatus
	if js.ExitCode != 0 || json.Unmarshal([]byte(js.Stdout), &s) != nil {
		t.Fatalf("status -o json: exit %d\n%s%s", js.ExitCode, js.Stdout, js.Stderr)
	}
	if len(s.Stalled) == 0 || s.Stalled[0].Reason != "FailedCreate" || s.Stalled[0].Message != event || s.Feasibility == nil || s.Feasibility.Stall == nil || s.ETA != nil {
		t.Errorf("status -o json: stalled %+v, feasibility %+v, eta %v", s.Stalled, s.Feasibility, s.ETA)
	}
	ff := c.Plugin(t, "status", "sts/db", "-n", ns, "--fail-fast", "--fail-fast-after", "1s")
	if ff.ExitCode != 6 || !strings.Contains(ff.Stderr, `statefulset "db" does not progress: FailedCreate (1 pod not created): `+event) {
		t.Errorf("status --fail-fast: exit %d, want 6 naming the refusal\n%s%s", ff.ExitCode, ff.Stdout, ff.Stderr)
	}
}

// waitFailedCreate returns the message of the latest FailedCreate event of kind/name in ns,
// waiting up to timeout for one.
func waitFailedCreate(t *testing.T, c *framework.Cluster, ns, kind, name string, timeout time.Duration) string {
	t.Helper()
	sel := fields.SelectorFromSet(fields.Set{"involvedObject.kind": kind, "involvedObject.name": name, "reason": "FailedCreate"}).String()
	deadline := time.Now().Add(timeout)
	for {
		l, err := c.Client.CoreV1().Events(ns).List(t.Context(), metav1.ListOptions{FieldSelector: sel})
		if err != nil {
			t.Fatal(err)
		}
		var last *corev1.Event
		for i := range l.Items {
			if e := &l.Items[i]; last == nil || e.LastTimestamp.After(last.LastTimestamp.Time) {
				last = e
			}
		}
		if last != nil {
			return last.Message
		}
		if time.Now().After(deadline) {
			t.Fatalf("no FailedCreate event of %s/%s after %s", kind, name, timeout)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestKindsStatusETA: an OrderedReady StatefulSet (3 replicas, minReadySeconds 1) rolling
// with kwok's ready delays (pods Ready 2 s after creation, rollplan.test/ready-after): once its first pod is replaced, status -o json gives an ETA from
// the timed model (pods' creation to Ready measured on its own pods), which is within 25% (or
// 2 s) of the time the rollout then takes to complete. Not parallel: it measures time.
func TestKindsStatusETA(t *testing.T) {
	c := framework.Get(t)
	ns := c.Namespace(t)
	tmpl := kindsPodTemplate("db", "nginx:1.18")
	framework.SetReadyAfter(&tmpl, 2*time.Second, 0)
	sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: ns},
		Spec: appsv1.StatefulSetSpec{Replicas: ptr.To[int32](3), ServiceName: "db", MinReadySeconds: 1, Template: tmpl,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}}}
	if _, err := c.Client.AppsV1().StatefulSets(ns).Create(t.Context(), sts, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kindRolledOut(t, c, ns, "sts/db")
	setKindImage(t, c, ns, "sts", "db", "nginx:1.19")
	var s v1alpha1.WorkloadStatus
	var at time.Time
	deadline := time.Now().Add(30 * time.Second)
	for {
		at = time.Now()
		res := c.Plugin(t, "status", "sts/db", "-n", ns, "--sync-latency", "0", "-o", "json")
		if res.ExitCode != 0 || json.Unmarshal([]byte(res.Stdout), &s) != nil {
			t.Fatalf("status -o json: exit %d\n%s%s", res.ExitCode, res.Stdout, res.Stderr)
		}
		if s.ETA != nil && s.Updated >= 1 || s.Done || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if s.ETA == nil || s.Done {
		t.Fatalf("no ETA while the rollout was in progress: %+v", s)
	}
	for {
		st, err := c.Client.AppsV1().StatefulSets(ns).Get(t.Context(), "db", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if st.Status.ObservedGeneration == st.Generation && st.Status.UpdatedReplicas == 3 && st.Status.AvailableReplicas == 3 && st.Status.CurrentRevision == st.Status.UpdateRevision {
			break
		}
		if time.Since(at) > 60*time.Second {
			t.Fatalf("rollout not complete after 60s: %+v", st.Status)
		}
		time.Sleep(100 * time.Millisecond)
	}
	measured, eta := time.Since(at), s.ETA.Duration
	t.Logf("at step %d of %d: eta %s (%s), measured %s", s.Updated, s.Total, eta, s.ETABasis, measured.Round(10*time.Millisecond))
	if d := (eta - measured).Abs(); d > max(measured/4, 2*time.Second) {
		t.Errorf("eta %s, measured %s: off by %s, more than 25%% (or 2 s)", eta, measured.Round(10*time.Millisecond), d.Round(10*time.Millisecond))
	}
}
