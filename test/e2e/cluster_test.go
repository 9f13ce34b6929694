//go:build e2e

package e2e

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// TestClusterReproducesStalledRollout proves the local cluster behaves as
// docs/local-cluster.md says the v1.36.3 controller does: a 10-replica Deployment with
// 25%/25% whose new pods never become Ready gets exactly the writes new 0->3 (create),
// old 10->8, new 3->5, and then none; once the pods are released, the rollout completes.
// It is the template for the preview e2e tests.
func TestClusterReproducesStalledRollout(t *testing.T) {
	c := framework.Get(t)
	ns := c.Namespace(t)
	began := time.Now()

	d := c.CreateDeployment(t, ns, framework.NewDeployment("web").
		Replicas(10).Image("nginx:1.18").RollingUpdate("25%", "25%"))
	d = c.WaitForRollout(t, ns, d.Name, time.Minute)
	if d.Status.ReadyReplicas != 10 || d.Status.AvailableReplicas != 10 {
		t.Fatalf("before the change: ready %d, available %d, want 10 and 10", d.Status.ReadyReplicas, d.Status.AvailableReplicas)
	}
	rss := c.ReplicaSetsOf(t, d)
	if len(rss) != 1 {
		t.Fatalf("before the change: %d replicasets, want 1", len(rss))
	}
	oldRS := rss[0].Name
	t.Logf("10 pods Ready after %s", time.Since(began).Round(10*time.Millisecond))

	rec := c.RecordReplicaSets(t, ns)
	d = c.UpdateDeployment(t, ns, d.Name, func(d *appsv1.Deployment) {
		d.Spec.Template.Spec.Containers[0].Image = "nginx:1.19"
		framework.SetHold(&d.Spec.Template, true)
	})

	// Wait until the controller has made its three writes and has seen the result (status
	// of generation 2 with 13 pods, 5 of them updated and none of those available), then
	// for a quiet spell: nothing more may come while the new pods are held.
	rec.WaitFor(t, 30*time.Second, func(w []framework.RSWrite, e []framework.ScalingEvent) bool { return len(w) >= 3 && len(e) >= 3 })
	_, err := c.WaitForDeployment(t.Context(), ns, d.Name, 30*time.Second, func(d *appsv1.Deployment) (string, bool, error) {
		s := d.Status
		return "status not settled", s.ObservedGeneration == d.Generation && s.Replicas == 13 &&
			s.UpdatedReplicas == 5 && s.AvailableReplicas == 8, nil
	})
	if err != nil {
		t.Fatalf("wait for the stalled rollout's status: %v", err)
	}
	writes := rec.WaitQuiet(t, 3*time.Second, 30*time.Second)
	events := rec.Events()

	var newRS string
	for _, w := range writes {
		if w.Op == framework.OpCreate {
			newRS = w.Name
		}
	}
	alias := map[string]string{oldRS: "old", newRS: "new"}
	wantWrites := []string{"create new 0->3", "scale old 10->8", "scale new 3->5"}
	if diff := cmp.Diff(wantWrites, describeWrites(writes, alias)); diff != "" {
		t.Errorf("replicaset writes while the new pods are held (-want +got):\n%s", diff)
	}
	wantEvents := []string{"up new 0->3", "down old 10->8", "up new 3->5"}
	if diff := cmp.Diff(wantEvents, describeEvents(events, alias)); diff != "" {
		t.Errorf("ScalingReplicaSet events while the new pods are held (-want +got):\n%s", diff)
	}
	if n := len(c.HeldPods(t, ns, "")); n != 5 {
		t.Errorf("held pods: %d, want 5 (the new replicaset's)", n)
	}

	t.Logf("stalled after %s (including a 3 s quiet spell)", time.Since(began).Round(10*time.Millisecond))

	// Release: every new pod (the template still carries the hold label, so the ones the
	// controller creates from here on too) becomes Ready and the rollout finishes.
	stop := c.AutoRelease(t, ns, "")
	d = c.WaitForRollout(t, ns, d.Name, time.Minute)
	if released := stop(); released != 10 {
		t.Errorf("released %d pods, want 10 (every pod of the new replicaset)", released)
	}
	t.Logf("rollout complete after %s", time.Since(began).Round(10*time.Millisecond))
	final := map[string]int32{}
	for _, rs := range c.ReplicaSetsOf(t, d) {
		final[alias[rs.Name]] = ptr.Deref(rs.Spec.Replicas, 1)
	}
	if diff := cmp.Diff(map[string]int32{"old": 0, "new": 10}, final); diff != "" {
		t.Errorf("replicas after the rollout (-want +got):\n%s", diff)
	}
}

func describeWrites(ws []framework.RSWrite, alias map[string]string) []string {
	var out []string
	for _, w := range ws {
		out = append(out, w.Describe(alias))
	}
	return out
}

func describeEvents(es []framework.ScalingEvent, alias map[string]string) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Describe(alias))
	}
	return out
}
