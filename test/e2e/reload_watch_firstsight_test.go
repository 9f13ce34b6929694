//go:build e2e

package e2e

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// TestReloadWatchFirstSightJudgesByEvidence: a watcher started after a config change on a
// never-annotated opted-in Deployment restarts it, with the "possibly stale since T" evidence
// in the Event; one whose config was written before its pods were created is adopted
// without a restart.
func TestReloadWatchFirstSightJudgesByEvidence(t *testing.T) {
	f := newReloadFixture(t) // ConfigMap app, written now
	f.setConfigMap("other", map[string]string{"a": "1"})
	f.create(framework.NewDeployment("predates").Replicas(2), readsKey("other", "a"), optIn)
	f.c.WaitForRollout(t, f.ns, "predates", time.Minute)
	f.deployment("changed", "a", true)
	time.Sleep(1100 * time.Millisecond) // managedFields and creation times have 1 s resolution
	f.setKey("a", "2")                  // after changed's pods were created, with no watcher running

	w := startWatcher(t, f.c, "-n", f.ns, "--grace-period", "0")
	f.eventually("changed restarted and predates adopted", time.Minute, func() bool {
		return restartedWith(f.get("changed")) != "" && adopted(f.get("predates"))
	}, w)
	f.c.WaitForRollout(t, f.ns, "changed", time.Minute)
	time.Sleep(2 * time.Second) // a wrong restart of predates would have come by now
	if n := f.replicaSets("changed"); n != 2 {
		t.Errorf("changed: %d ReplicaSets, want 2 (one restart)", n)
	}
	if n := f.replicaSets("predates"); n != 1 || restartedWith(f.get("predates")) != "" {
		t.Errorf("predates restarted (%d ReplicaSets) although its config predates its pods", n)
	}
	if adopted(f.get("changed")) {
		t.Error("changed adopted, want restarted")
	}
	f.eventually("the ConfigReloaded event with the evidence", time.Minute, func() bool {
		ev, err := f.c.Client.CoreV1().Events(f.ns).List(t.Context(), metav1.ListOptions{FieldSelector: "involvedObject.name=changed,reason=ConfigReloaded"})
		return err == nil && len(ev.Items) == 1 && strings.Contains(ev.Items[0].Message, "restarted at first sight: possibly stale since ") &&
			strings.Contains(ev.Items[0].Message, "configmap/app data written ") && strings.Contains(ev.Items[0].Message, "after the oldest pod of replicaset changed-")
	}, w)
	f.eventually("the ConfigAdopted event of predates", time.Minute, func() bool {
		ev, err := f.c.Client.CoreV1().Events(f.ns).List(t.Context(), metav1.ListOptions{FieldSelector: "involvedObject.name=predates,reason=ConfigAdopted"})
		return err == nil && len(ev.Items) == 1
	}, w)
	if !strings.Contains(w.stdout.String(), "deployment.apps/changed restarted (namespace "+f.ns+"): restarted at first sight") {
		t.Errorf("watcher stdout lacks the first-sight restart line:\n%s", w.stdout.String())
	}
}
