package daemonset

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// timed sets w's input to the timed model: pods Ready readyAfter after creation, latency per
// writing sync, the first sync at epoch.
func (w *world) timed(readyAfter, latency time.Duration) *world {
	w.in.Readiness, w.in.ReadyAfter, w.in.SyncLatency, w.in.Now = planner.ReadinessTimed, readyAfter, latency, metav1.NewTime(epoch)
	return w
}

// syncTimes returns "step@time" for each step that made operations.
func syncTimes(p *Plan) []string {
	var out []string
	for _, s := range p.Steps {
		out = append(out, time.Duration(p.SyncAt[s.Step-1]).String())
	}
	return out
}

func TestTimedDeleteFirst(t *testing.T) {
	// 5 nodes, maxUnavailable 2, Ready 10s after creation, no latency: the deletes and
	// creates of 2 nodes at 0s, 2 more at 10s, the last node at 20s, its pod available at
	// 30s: 3 rounds of 10s.
	p := simulate(t, newWorld(5, "agent:v2").strategy("0", "2").timed(10*time.Second, 0).in)
	if p.Outcome != OutcomeComplete || p.Duration != 30*time.Second {
		t.Fatalf("outcome %s, duration %s; want Complete, 30s", p.Outcome, p.Duration)
	}
	want := []string{"1: C0 D2 u2 s0", "2: C2 D0 u2 s0", "4: C0 D2 u2 s0", "5: C2 D0 u2 s0", "7: C0 D1 u1 s0", "8: C1 D0 u1 s0"}
	if d := cmp.Diff(want, stepCounts(p)); d != "" {
		t.Errorf("steps (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"0s", "0s", "10s", "10s", "20s", "20s"}, syncTimes(p)); d != "" {
		t.Errorf("sync times (-want +got):\n%s", d)
	}
	if len(p.SyncAt) != p.Syncs {
		t.Errorf("%d sync times for %d syncs", len(p.SyncAt), p.Syncs)
	}

	// A second of latency per writing sync: each round is delete (t), create (t+1s), Ready
	// 10s later: 0s, 11s, 22s, the last pod Ready at 33s.
	p = simulate(t, newWorld(5, "agent:v2").strategy("0", "2").timed(10*time.Second, time.Second).in)
	if d := cmp.Diff([]string{"0s", "1s", "11s", "12s", "22s", "23s"}, syncTimes(p)); d != "" {
		t.Errorf("sync times with latency (-want +got):\n%s", d)
	}
	if p.Duration != 33*time.Second {
		t.Errorf("duration with latency %s, want 33s", p.Duration)
	}
}

func TestTimedSurgeVsUnavailable(t *testing.T) {
	// 3 nodes, Ready 10s, 1s latency. maxUnavailable 1: delete, then create a sync later,
	// per node: creates at 1s, 12s, 23s, done at 33s. maxSurge 1: the first create at once
	// (0s), the old pod deleted when the new one is available (10s), the next create a sync
	// later (11s, then 22s): the last new pod available at 32s, one latency earlier; its old
	// pod is deleted after that (not part of the duration).
	del := simulate(t, newWorld(3, "agent:v2").strategy("0", "1").timed(10*time.Second, time.Second).in)
	surge := simulate(t, newWorld(3, "agent:v2").strategy("1", "0").timed(10*time.Second, time.Second).in)
	if del.Duration != 33*time.Second || surge.Duration != 32*time.Second {
		t.Errorf("durations: maxUnavailable 1 %s, maxSurge 1 %s; want 33s, 32s", del.Duration, surge.Duration)
	}
	if d := cmp.Diff([]string{"0s", "10s", "11s", "21s", "22s", "32s"}, syncTimes(surge)); d != "" {
		t.Errorf("surge sync times (-want +got):\n%s", d)
	}
	if got := surge.SyncAt[surge.Syncs-1]; got != 33*time.Second {
		t.Errorf("surge: last sync at %s, want 33s (after the last old pod's delete)", got)
	}
}

func TestTimedMinReadySeconds(t *testing.T) {
	// minReadySeconds 5 adds 5s per round: 5 nodes, maxUnavailable 2, Ready 10s: 3 x 15s.
	w := newWorld(5, "agent:v2").strategy("0", "2").timed(10*time.Second, 0)
	w.in.DaemonSet.Spec.MinReadySeconds = 5
	for _, p := range w.in.Pods {
		p.Status.Conditions[0].LastTransitionTime = metav1.NewTime(epoch.Add(-time.Hour))
	}
	p := simulate(t, w.in)
	if p.Duration != 45*time.Second {
		t.Errorf("duration %s, want 45s", p.Duration)
	}
	if d := cmp.Diff([]string{"0s", "0s", "15s", "15s", "30s", "30s"}, syncTimes(p)); d != "" {
		t.Errorf("sync times (-want +got):\n%s", d)
	}
}

func TestTimedExistingPods(t *testing.T) {
	// A v1 pod Ready 2s before the change with minReadySeconds 5 is available at 3s: the
	// rollout (maxUnavailable 1, 2 nodes) waits for it before deleting it. node-0's pod is
	// Ready long ago; node-1's since epoch-2s.
	w := newWorld(2, "agent:v2").strategy("0", "1").timed(10*time.Second, 0)
	w.in.DaemonSet.Spec.MinReadySeconds = 5
	w.in.Pods[1].Status.Conditions[0].LastTransitionTime = metav1.NewTime(epoch.Add(-2 * time.Second))
	w.in.Pods[0].Status.Conditions[0].LastTransitionTime = metav1.NewTime(epoch.Add(-time.Hour))
	p := simulate(t, w.in)
	// node-0: delete at 0s, create at 0s, available at 15s; node-1 at 15s, available at 30s.
	if p.Duration != 30*time.Second {
		t.Errorf("duration %s, want 30s", p.Duration)
	}
	// An unready v1 pod (created 4s before the change: it would be Ready at 6s) is deleted
	// at once and counts as the one unavailable node: node-1 first (0s to 10s), node-0
	// next (10s to 20s).
	w = newWorld(2, "agent:v2").strategy("0", "1").timed(10*time.Second, 0)
	w.in.Pods[1].Status.Conditions = nil
	w.in.Pods[1].CreationTimestamp = metav1.NewTime(epoch.Add(-4 * time.Second))
	p = simulate(t, w.in)
	if p.Duration != 20*time.Second || p.Steps[0].Deletes != 1 {
		t.Errorf("duration %s, first deletes %d; want 20s, 1", p.Duration, p.Steps[0].Deletes)
	}
	if op := p.PodOperations[len(p.PodOperations)-2]; op.Node != "node-1" || op.Step != 1 || op.Action != planner.PodDelete {
		t.Errorf("node-1's first operation %+v, want its delete at sync 1", op)
	}
}

func TestTimedOnDelete(t *testing.T) {
	// OnDelete: nothing happens, the pods wait for someone: no duration.
	w := newWorld(3, "agent:v2").timed(10*time.Second, time.Second)
	w.in.DaemonSet.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType}
	p := simulate(t, w.in)
	if p.Outcome != OutcomeWaitingForDelete || p.Duration != 0 || len(p.PodOperations) != 0 {
		t.Errorf("outcome %s, duration %s, %d operations; want WaitingForDelete, 0, 0", p.Outcome, p.Duration, len(p.PodOperations))
	}
}

func TestTimedSameOperationsAsBatched(t *testing.T) {
	// The timed model changes when, not what: the same operations as batched.
	for _, st := range [][2]string{{"0", "1"}, {"0", "2"}, {"1", "0"}, {"2", "0"}, {"0", "40%"}} {
		b := simulate(t, newWorld(5, "agent:v2").strategy(st[0], st[1]).in)
		tm := simulate(t, newWorld(5, "agent:v2").strategy(st[0], st[1]).timed(7*time.Second, 500*time.Millisecond).in)
		if d := cmp.Diff(b.PodOperations, tm.PodOperations); d != "" {
			t.Errorf("maxSurge %s maxUnavailable %s: operations (-batched +timed):\n%s", st[0], st[1], d)
		}
		if tm.Outcome != OutcomeComplete || tm.Duration <= 0 {
			t.Errorf("maxSurge %s maxUnavailable %s: %s, %s", st[0], st[1], tm.Outcome, tm.Duration)
		}
	}
}
