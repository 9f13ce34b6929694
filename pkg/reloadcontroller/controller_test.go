package reloadcontroller

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/rollplan/kubectl-rollplan/pkg/reload"
)

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestConfigEditRestartsExactlyTheDeploymentsThatSeeTheKey(t *testing.T) {
	cm := configMap("app", map[string]string{"a": "1", "b": "1"})
	seesA := recorded(deployment("sees-a", "app", "a"), cm)
	seesB := recorded(deployment("sees-b", "app", "b"), cm)
	seesAll := recorded(deployment("sees-all", "app", ""), cm)
	optedOut := recorded(deployment("opted-out", "app", ""), cm)
	delete(optedOut.Annotations, reload.ReloadAnnotation)
	h := start(t, Config{}, cm, seesA, seesB, seesAll, optedOut)
	settle(0)
	if p := h.patches(); len(p) != 0 {
		t.Fatalf("patched %v before any change, want nothing (every Deployment is current)", p)
	}

	h.updateConfigMap(configMap("app", map[string]string{"a": "1", "b": "2"}))
	h.eventually("two restarts", func() bool { return len(h.patches()) == 2 })
	settle(0)
	got := h.patches()
	if diff := cmp.Diff([]string{"sees-all", "sees-b"}, sortedCopy(got)); diff != "" {
		t.Errorf("restarted (-want +got):\n%s", diff)
	}
	// The annotation now holds the new checksums: nothing is stale any more.
	after := h.deployment("sees-b")
	cur := map[reload.ObjectKey]reload.Object{{Namespace: ns, Kind: reload.ConfigMap, Name: "app"}: reload.ConfigMapObject(configMap("app", map[string]string{"a": "1", "b": "2"}))}
	if dec := reload.Decide(after, cur); dec.Stale || dec.Refused() {
		t.Errorf("after the restart: %v, want current", dec)
	}
	if ev, ok := h.eventsWith("sees-b", ReasonRestarted+" restarted for changed config: ConfigMap/app [b]"); !ok {
		t.Errorf("events on sees-b: %q, want a %s naming ConfigMap/app [b]", ev, ReasonRestarted)
	}
	if !strings.Contains(h.out.String(), "deployment.apps/sees-b restarted (namespace shop)") {
		t.Errorf("output %q lacks the restart line of sees-b", h.out.String())
	}
}

func TestGracePeriodCompactsABurstIntoOneRestart(t *testing.T) {
	grace := 2 * time.Second
	cm := configMap("app", map[string]string{"a": "1"})
	web := recorded(deployment("web", "app", ""), cm)
	h := start(t, Config{GracePeriod: grace}, cm, web)
	settle(0) // past the initial sync
	began := time.Now()
	h.updateConfigMap(configMap("app", map[string]string{"a": "2"}))
	time.Sleep(100 * time.Millisecond)
	h.updateConfigMap(configMap("app", map[string]string{"a": "3"}))
	if second := time.Since(began); second >= grace {
		t.Skipf("the second edit came %v after the first, not within the %v grace period (a loaded machine)", second, grace)
	}
	h.eventually("a restart", func() bool { return len(h.patches()) == 1 })
	if took := time.Since(began); took < grace {
		t.Errorf("restarted %v after the first edit, within the %v grace period", took, grace)
	}
	settle(grace)
	if p := h.patches(); len(p) != 1 {
		t.Fatalf("restarts %v, want one for two edits within %v", p, grace)
	}
	final := map[reload.ObjectKey]reload.Object{{Namespace: ns, Kind: reload.ConfigMap, Name: "app"}: reload.ConfigMapObject(configMap("app", map[string]string{"a": "3"}))}
	if dec := reload.Decide(h.deployment("web"), final); dec.Stale {
		t.Errorf("the one restart did not record the last edit: %v", dec)
	}
	if got := counterValue(t, h.metrics, "rollplan_reload_changes_processed_total"); got != 1 {
		t.Errorf("changes_processed_total %v, want 1", got)
	}
}

func TestStartedAfterTheChangeRestartsExactlyTheStaleDeployments(t *testing.T) {
	old := configMap("app", map[string]string{"a": "1"})
	now := configMap("app", map[string]string{"a": "2"})
	stale := recorded(deployment("stale", "app", "a"), old)
	current := recorded(deployment("current", "app", "a"), now)
	staleOptedOut := recorded(deployment("stale-opted-out", "app", "a"), old)
	delete(staleOptedOut.Annotations, reload.ReloadAnnotation)
	h := start(t, Config{}, now, stale, current, staleOptedOut)
	h.eventually("a restart", func() bool { return len(h.patches()) == 1 })
	settle(0)
	if diff := cmp.Diff([]string{"stale"}, h.patches()); diff != "" {
		t.Errorf("restarted after downtime (-want +got):\n%s", diff)
	}
}

func TestFirstSightAdoptsWithoutARestartThenAChangeRestarts(t *testing.T) {
	cm := configMap("app", map[string]string{"a": "1"})
	web := deployment("web", "app", "a") // no checksums annotation: first sight
	h := start(t, Config{}, cm, web)
	h.eventually("the adoption", func() bool { return len(h.patches()) == 1 })
	settle(0)
	adopted := h.deployment("web")
	if len(h.patches()) != 1 || adopted.Annotations[reload.AdoptedAnnotation] == "" {
		t.Fatalf("patches %v, adopted annotation %q: want one adoption", h.patches(), adopted.Annotations[reload.AdoptedAnnotation])
	}
	if _, ok := adopted.Spec.Template.Annotations[reload.ChecksumsAnnotation]; ok {
		t.Fatal("first sight restarted the pods (the template annotation is set)")
	}
	if got := counterValue(t, h.metrics, "rollplan_reload_deployment_restarts_total"); got != 0 {
		t.Errorf("restarts %v at first sight, want 0", got)
	}
	if ev, ok := h.eventsWith("web", ReasonAdopted+" recorded the config checksums without a restart (first sight): ConfigMap/app [a]"); !ok {
		t.Errorf("events %q, want %s naming ConfigMap/app [a]", ev, ReasonAdopted)
	}

	h.updateConfigMap(configMap("app", map[string]string{"a": "2"}))
	h.eventually("a restart", func() bool { return len(h.patches()) == 2 })
	if a := h.deployment("web").Spec.Template.Annotations[reload.ChecksumsAnnotation]; a == "" {
		t.Error("the restart did not write the checksums annotation")
	}
}

func TestMissingSecretRefusesWithAWarningEvent(t *testing.T) {
	web := deployment("web", "app", "a")
	web.Spec.Template.Spec.Containers[0].EnvFrom = []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "db"}}}}
	cm := configMap("app", map[string]string{"a": "1"})
	h := start(t, Config{}, cm, web)
	h.updateConfigMap(configMap("app", map[string]string{"a": "2"}))
	h.eventually("a refusal", func() bool { return counterValue(t, h.metrics, "rollplan_reload_refusals_total") == 1 })
	settle(0)
	if p := h.patches(); len(p) != 0 {
		t.Errorf("patched %v although secret/db is missing", p)
	}
	if ev, ok := h.eventsWith("web", ReasonRefused, "secret/db not found"); !ok {
		t.Errorf("events %q, want a %s naming secret/db", ev, ReasonRefused)
	}
}

func TestPausedDeploymentIsRefusedUntilResumed(t *testing.T) {
	cm := configMap("app", map[string]string{"a": "1"})
	web := recorded(deployment("web", "app", ""), cm)
	web.Spec.Paused = true
	h := start(t, Config{}, cm, web)
	h.updateConfigMap(configMap("app", map[string]string{"a": "2"}))
	h.eventually("a refusal", func() bool { return counterValue(t, h.metrics, "rollplan_reload_refusals_total") == 1 })
	settle(0)
	if p := h.patches(); len(p) != 0 {
		t.Fatalf("patched %v a paused Deployment", p)
	}
	if ev, ok := h.eventsWith("web", ReasonRefused+" restart of deployment shop/web refused: it is paused"); !ok {
		t.Errorf("events %q, want a %s naming the pause", ev, ReasonRefused)
	}
	d := h.deployment("web")
	d.Spec.Paused = false
	d.Generation++
	if _, err := h.cs.AppsV1().Deployments(ns).Update(context.Background(), d, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	h.eventually("the restart after resume", func() bool { return contains(h.patches(), "web") })
}

func TestMaxConcurrentWaitsForTheRolloutBeforeTheNextRestart(t *testing.T) {
	cm := configMap("app", map[string]string{"a": "1"})
	one := recorded(deployment("one", "app", ""), cm)
	two := recorded(deployment("two", "app", ""), cm)
	// The fake clientset has no Deployment controller: a patched Deployment keeps its
	// status, so an incomplete one stays incomplete until the test completes it.
	one.Status.UpdatedReplicas, two.Status.UpdatedReplicas = 0, 0
	h := start(t, Config{MaxConcurrent: 1}, cm, one, two)
	h.updateConfigMap(configMap("app", map[string]string{"a": "2"}))
	h.eventually("the first restart", func() bool { return len(h.patches()) == 1 })
	settle(0)
	first := h.patches()[0]
	if p := h.patches(); len(p) != 1 {
		t.Fatalf("restarts %v while %s's rollout is incomplete, want 1 (--max-concurrent 1)", p, first)
	}
	d := h.deployment(first)
	d.Status.UpdatedReplicas = 1
	if _, err := h.cs.AppsV1().Deployments(ns).UpdateStatus(context.Background(), d, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	h.eventually("the second restart", func() bool { return len(h.patches()) == 2 })
	if diff := cmp.Diff([]string{"one", "two"}, sortedCopy(h.patches())); diff != "" {
		t.Errorf("restarts (-want +got):\n%s", diff)
	}
}

func TestRolloutTimeoutGoesOnWithAWarning(t *testing.T) {
	cm := configMap("app", map[string]string{"a": "1"})
	one := recorded(deployment("one", "app", ""), cm)
	one.Status.UpdatedReplicas = 0
	two := recorded(deployment("two", "app", ""), cm)
	two.Status.UpdatedReplicas = 0
	h := start(t, Config{RolloutTimeout: 200 * time.Millisecond}, cm, one, two)
	h.updateConfigMap(configMap("app", map[string]string{"a": "2"}))
	h.eventually("both restarts", func() bool { return len(h.patches()) == 2 })
	h.eventually("two timed-out rollouts", func() bool {
		return counterValue(t, h.metrics, "rollplan_reload_rollouts_failed_total") == 2
	})
	if ev, ok := h.eventsWith("one", ReasonRolloutFailed); !ok {
		t.Errorf("events on one: %q, want %s", ev, ReasonRolloutFailed)
	}
}

func sortedCopy(s []string) []string { return slices.Sorted(slices.Values(s)) }

var _ runtime.Object = &ConfigObject{}

// TestPatchesCarryTheFieldManager: the restart and adopt patches are recorded under
// rollplan-reload (not "kubectl"-prefixed: Flux's kustomize-controller takes over and then
// reverts the fields of those), or under Config.FieldManager.
func TestPatchesCarryTheFieldManager(t *testing.T) {
	for _, tc := range []struct {
		name, manager, want string
	}{
		{"default", "", "rollplan-reload"},
		{"--field-manager", "kubectl-rollplan", "kubectl-rollplan"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cm := configMap("app", map[string]string{"a": "1"})
			stale := recorded(deployment("stale", "app", "a"), cm)
			firstSight := deployment("first-sight", "app", "a")
			h := start(t, Config{FieldManager: tc.manager, MaxConcurrent: 2}, cm, stale, firstSight)
			h.eventually("the adopt patch", func() bool { return len(h.patches()) == 1 })
			h.updateConfigMap(configMap("app", map[string]string{"a": "2"}))
			h.eventually("the adopt and restart patches", func() bool { return len(h.patches()) >= 3 })
			h.stop()
			var got []string
			for _, a := range h.cs.Actions() {
				if p, ok := a.(k8stesting.PatchActionImpl); ok && a.GetResource().Resource == "deployments" {
					got = append(got, p.GetName()+" "+p.PatchOptions.FieldManager)
				}
			}
			// Every patch, a guarded one the API refused included (a sync from a cache that
			// has not seen the adopt yet sends a second adopt whose resourceVersion test
			// fails), carries the field manager: compare each distinct one.
			want := []string{"first-sight " + tc.want, "stale " + tc.want}
			if diff := cmp.Diff(want, slices.Compact(sortedCopy(got))); diff != "" {
				t.Errorf("patches (-want +got):\n%s", diff)
			}
		})
	}
}
