package planner_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// Short names for the decisions and waits the tables use.
const (
	create      = planner.DecisionCreateNewRS
	up          = planner.DecisionScaleUpNewRS
	downNew     = planner.DecisionScaleDownNewRS
	down        = planner.DecisionScaleDownOldRS
	unhealthy   = planner.DecisionCleanupUnhealthy
	proportion  = planner.DecisionProportional
	onlyActive  = planner.DecisionScaleActiveOrLatest
	recreate0   = planner.DecisionRecreateScaleDown
	noWait      = planner.WaitNone
	podsReady   = planner.WaitPodsAvailable
	oldPodsGone = planner.WaitOldPodsTerminated
)

// step is the Step a table expects: in sync, ReplicaSet rs (an index into Plan.ReplicaSets)
// goes from -> to for reason why after waiting for wait; replicas are every ReplicaSet's
// spec.replicas after the write, total their sum and available the available pods then.
// Every number is written out by hand in the tables, never derived here.
func step(sync, rs int, from, to int32, why planner.Decision, wait planner.Wait, replicas []int32, total, available int32) planner.Step {
	return planner.Step{
		ReplicaSet: rs, From: from, To: to, Create: why == create, Decision: why, Wait: wait,
		Sync: sync, Replicas: replicas, Total: total, Available: available,
	}
}

func r(replicas ...int32) []int32 { return replicas }

// rolloutCase is one worked example: a start state, a readiness model, and the plan
// expected from reading the v1.36.3 controller (rolling.go, sync.go, recreate.go,
// deploymentutil), each number derived by hand in the case's comment.
type rolloutCase struct {
	name      string
	d         *appsv1.Deployment
	rss       []*appsv1.ReplicaSet
	readiness planner.Readiness

	wantStrategy       *planner.Strategy // checked when set
	wantRSs            []string          // Plan.ReplicaSets names, oldest first ("" = the new one)
	wantSteps          []planner.Step
	wantOutcome        planner.Outcome
	wantSyncs          int
	wantFinal          []int32
	wantFinalAvailable []int32
}

func simulate(t *testing.T, in planner.Input) *planner.Plan {
	t.Helper()
	plan, err := planner.Simulate(in)
	if err != nil {
		t.Fatalf("Simulate: %v", err)
	}
	return plan
}

func checkRollout(t *testing.T, tc rolloutCase) {
	t.Helper()
	plan := simulate(t, planner.Input{Deployment: tc.d, ReplicaSets: tc.rss, Readiness: tc.readiness})
	if tc.wantStrategy != nil {
		if diff := cmp.Diff(*tc.wantStrategy, plan.Strategy); diff != "" {
			t.Errorf("Strategy (-want +got):\n%s", diff)
		}
	}
	var gotRSs []string
	for _, rs := range plan.ReplicaSets {
		name := rs.Name
		if rs.New {
			name = ""
		}
		gotRSs = append(gotRSs, name)
	}
	if diff := cmp.Diff(tc.wantRSs, gotRSs); diff != "" {
		t.Errorf("ReplicaSets (-want +got, \"\" is the new one):\n%s", diff)
	}
	if diff := cmp.Diff(tc.wantSteps, plan.Steps); diff != "" {
		t.Errorf("Steps (-want +got):\n%s", diff)
	}
	if plan.Outcome != tc.wantOutcome {
		t.Errorf("Outcome = %s, want %s (stalled reason %q)", plan.Outcome, tc.wantOutcome, plan.StalledReason)
	}
	if plan.Syncs != tc.wantSyncs {
		t.Errorf("Syncs = %d, want %d", plan.Syncs, tc.wantSyncs)
	}
	if diff := cmp.Diff(tc.wantFinal, plan.Final); diff != "" {
		t.Errorf("Final (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(tc.wantFinalAvailable, plan.FinalAvailable); diff != "" {
		t.Errorf("FinalAvailable (-want +got):\n%s", diff)
	}
}

// web returns the Deployment "web" of the tables: replicas pods of nginx:1.19 (the change),
// RollingUpdate 25%/25% unless changed.
func web(replicas int32) *testutil.DeploymentBuilder {
	return testutil.Deployment("web").Replicas(replicas).Image("nginx:1.19")
}

// oldRS returns d's ReplicaSet for an earlier image, with the revision and creation time
// given, its annotations written for d's replicas (desired-replicas = replicas,
// max-replicas = replicas + maxSurge), every pod available unless changed.
func oldRS(d *appsv1.Deployment, image string, revision int64, created int) *testutil.ReplicaSetBuilder {
	return testutil.ReplicaSetFor(d).Image(image).Revision(revision).Created(created)
}

// newRS returns the ReplicaSet of d's own template (the new one), already existing.
func newRS(d *appsv1.Deployment, revision int64, created int) *testutil.ReplicaSetBuilder {
	return testutil.ReplicaSetFor(d).Revision(revision).Created(created)
}

func TestSimulateRollingUpdate(t *testing.T) {
	var cases []rolloutCase

	// The worked example of the controller's own comments (rolling.go) and the seed articles.
	// 10 replicas, 25%/25%: maxSurge = ceil(2.5) = 3, maxUnavailable = floor(2.5) = 2,
	// minAvailable = 10-2 = 8, at most 10+3 = 13 pods.
	{
		d := web(10).Build()
		old := oldRS(d, "nginx:1.18", 1, 0).Build() // 10 pods, 10 available
		cases = append(cases, rolloutCase{
			name: "10 replicas 25%/25% under never: create 3 and old 10->8, then new 3->5, stalled",
			d:    d, rss: rsList(old), readiness: planner.ReadinessNever,
			wantStrategy: &planner.Strategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
				MaxSurgeSpec: "25%", MaxUnavailableSpec: "25%", MaxSurge: 3, MaxUnavailable: 2},
			wantRSs: []string{old.Name, ""},
			wantSteps: []planner.Step{
				// sync 1, getNewReplicaSet: NewRSNewReplicas = min(13-10, 10-0) = 3 (a create is
				// not "scaled up", so the sync goes on). reconcileOldReplicaSets: maxScaledDown =
				// 13 - 8 - (3-0 unavailable new) = 2 > 0; no unhealthy old pod; available 10 > 8,
				// so scale old down by 10-8 = 2.
				step(1, 1, 0, 3, create, noWait, r(10, 3), 13, 10),
				step(1, 0, 10, 8, down, noWait, r(8, 3), 11, 8),
				// sync 2: NewRSNewReplicas = 3 + min(13-11, 10-3) = 5; a scale-up ends the sync.
				step(2, 1, 3, 5, up, noWait, r(8, 5), 13, 8),
				// sync 3: 13 pods = maxTotal, no scale-up; maxScaledDown = 13-8-5 = 0: no write.
			},
			wantOutcome: planner.OutcomeStalled, wantSyncs: 3,
			wantFinal: r(8, 5), wantFinalAvailable: r(8, 0),
		})
	}
	{
		d := web(10).Build()
		old := oldRS(d, "nginx:1.18", 1, 0).Build()
		cases = append(cases, rolloutCase{
			name: "10 replicas 25%/25% batched: the whole rollout",
			d:    d, rss: rsList(old), readiness: planner.ReadinessBatched,
			wantRSs: []string{old.Name, ""},
			wantSteps: []planner.Step{
				// syncs 1-2 as under never; sync 3 writes nothing, then every pod is available
				// (old 8, new 5).
				step(1, 1, 0, 3, create, noWait, r(10, 3), 13, 10),
				step(1, 0, 10, 8, down, noWait, r(8, 3), 11, 8),
				step(2, 1, 3, 5, up, noWait, r(8, 5), 13, 8),
				// sync 4: no scale-up (13 pods); maxScaledDown = 13-8-0 = 5; available 8+5 = 13,
				// 13-8 = 5 to go: old 8->3.
				step(4, 0, 8, 3, down, podsReady, r(3, 5), 8, 8),
				// sync 5: NewRSNewReplicas = 5 + min(13-8, 10-5) = 10.
				step(5, 1, 5, 10, up, noWait, r(3, 10), 13, 8),
				// sync 6: new = 10 = replicas; maxScaledDown = 13-8-(10-5) = 0: nothing; pods
				// become available. sync 7: maxScaledDown = 13-8-0 = 5, available 13, old
				// min(3, 13-8) = 3 -> 0.
				step(7, 0, 3, 0, down, podsReady, r(0, 10), 10, 10),
				// sync 8: nothing to write, nothing left to become available.
			},
			wantOutcome: planner.OutcomeComplete, wantSyncs: 8,
			wantFinal: r(0, 10), wantFinalAvailable: r(0, 10),
		})
	}
	{
		d := web(10).Build()
		old := oldRS(d, "nginx:1.18", 1, 0).Build()
		cases = append(cases, rolloutCase{
			name: "10 replicas 25%/25% instant: pods available after every sync that wrote",
			d:    d, rss: rsList(old), readiness: planner.ReadinessInstant,
			wantRSs: []string{old.Name, ""},
			wantSteps: []planner.Step{
				step(1, 1, 0, 3, create, noWait, r(10, 3), 13, 10),
				step(1, 0, 10, 8, down, noWait, r(8, 3), 11, 8),
				// new 3 available. sync 2: 3 + min(13-11, 7) = 5; available 8+3 = 11.
				step(2, 1, 3, 5, up, podsReady, r(8, 5), 13, 11),
				// new 5 available. sync 3: 13 pods, no scale-up; maxScaledDown = 13-8-0 = 5;
				// available 8+5 = 13: old 8 -> 3.
				step(3, 0, 8, 3, down, podsReady, r(3, 5), 8, 8),
				// every pod was available already: no wait. sync 4: 5 + min(13-8, 5) = 10.
				step(4, 1, 5, 10, up, noWait, r(3, 10), 13, 8),
				// new 10 available. sync 5: available 13, old 3 -> 0. sync 6 writes nothing.
				step(5, 0, 3, 0, down, podsReady, r(0, 10), 10, 10),
			},
			wantOutcome: planner.OutcomeComplete, wantSyncs: 6,
			wantFinal: r(0, 10), wantFinalAvailable: r(0, 10),
		})
	}
	{
		// maxSurge=1, maxUnavailable=0, 3 replicas: minAvailable 3, at most 4 pods.
		d := web(3).MaxSurge("1").MaxUnavailable("0").Build()
		old := oldRS(d, "nginx:1.18", 1, 0).Build()
		cases = append(cases, rolloutCase{
			name: "maxSurge=1 maxUnavailable=0 surges one at a time",
			d:    d, rss: rsList(old), readiness: planner.ReadinessBatched,
			wantStrategy: &planner.Strategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
				MaxSurgeSpec: "1", MaxUnavailableSpec: "0", MaxSurge: 1, MaxUnavailable: 0},
			wantRSs: []string{old.Name, ""},
			wantSteps: []planner.Step{
				// sync 1: create min(4-3, 3) = 1; maxScaledDown = 4-3-1 = 0. sync 2: pods ready.
				step(1, 1, 0, 1, create, noWait, r(3, 1), 4, 3),
				// sync 3: 4 pods, no scale-up; maxScaledDown = 4-3-0 = 1; available 4 > 3: old -1.
				step(3, 0, 3, 2, down, podsReady, r(2, 1), 3, 3),
				// sync 4: 1 + min(4-3, 3-1) = 2.
				step(4, 1, 1, 2, up, noWait, r(2, 2), 4, 3),
				// sync 5: maxScaledDown = 4-3-1 = 0, pods ready; sync 6: old -1.
				step(6, 0, 2, 1, down, podsReady, r(1, 2), 3, 3),
				step(7, 1, 2, 3, up, noWait, r(1, 3), 4, 3),
				// sync 8: new = 3 = replicas, maxScaledDown = 4-3-1 = 0, pods ready; sync 9: old -1.
				step(9, 0, 1, 0, down, podsReady, r(0, 3), 3, 3),
			},
			wantOutcome: planner.OutcomeComplete, wantSyncs: 10,
			wantFinal: r(0, 3), wantFinalAvailable: r(0, 3),
		})
	}
	{
		// maxSurge=0, maxUnavailable=1, 3 replicas: minAvailable 2, at most 3 pods.
		d := web(3).MaxSurge("0").MaxUnavailable("1").Build()
		old := oldRS(d, "nginx:1.18", 1, 0).Build()
		cases = append(cases, rolloutCase{
			name: "maxSurge=0 maxUnavailable=1 creates the new RS empty and frees one pod at a time",
			d:    d, rss: rsList(old), readiness: planner.ReadinessBatched,
			wantStrategy: &planner.Strategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
				MaxSurgeSpec: "0", MaxUnavailableSpec: "1", MaxSurge: 0, MaxUnavailable: 1},
			wantRSs: []string{old.Name, ""},
			wantSteps: []planner.Step{
				// sync 1: 3 pods >= maxTotal 3, so the new RS is created with 0; maxScaledDown =
				// 3-2-0 = 1, available 3 > 2: old 3->2 in the same sync.
				step(1, 1, 0, 0, create, noWait, r(3, 0), 3, 3),
				step(1, 0, 3, 2, down, noWait, r(2, 0), 2, 2),
				// sync 2: 0 + min(3-2, 3-0) = 1.
				step(2, 1, 0, 1, up, noWait, r(2, 1), 3, 2),
				// sync 3: maxScaledDown = 3-2-1 = 0, pods ready. sync 4: 3-2-0 = 1, old 2->1.
				step(4, 0, 2, 1, down, podsReady, r(1, 1), 2, 2),
				step(5, 1, 1, 2, up, noWait, r(1, 2), 3, 2),
				step(7, 0, 1, 0, down, podsReady, r(0, 2), 2, 2),
				// sync 8: 3 pods would be 2+1: new 2 -> 3 at once, no wait (nothing to free).
				step(8, 1, 2, 3, up, noWait, r(0, 3), 3, 2),
				// sync 9: nothing to write, new pod ready; sync 10: settled.
			},
			wantOutcome: planner.OutcomeComplete, wantSyncs: 10,
			wantFinal: r(0, 3), wantFinalAvailable: r(0, 3),
		})
	}
	{
		// 2 replicas, maxSurge 0% -> 0, maxUnavailable 25% -> floor(0.5) = 0; both 0, so
		// maxUnavailable becomes 1: minAvailable 1, at most 2 pods.
		d := web(2).MaxSurge("0%").MaxUnavailable("25%").Build()
		old := oldRS(d, "nginx:1.18", 1, 0).Build()
		cases = append(cases, rolloutCase{
			name: "both percentages round to 0: maxUnavailable becomes 1",
			d:    d, rss: rsList(old), readiness: planner.ReadinessBatched,
			wantStrategy: &planner.Strategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
				MaxSurgeSpec: "0%", MaxUnavailableSpec: "25%", MaxSurge: 0, MaxUnavailable: 1},
			wantRSs: []string{old.Name, ""},
			wantSteps: []planner.Step{
				// sync 1: 2 pods >= 2, create with 0; maxScaledDown 2-1-0 = 1: old 2->1.
				step(1, 1, 0, 0, create, noWait, r(2, 0), 2, 2),
				step(1, 0, 2, 1, down, noWait, r(1, 0), 1, 1),
				// sync 2: 0 + min(2-1, 2) = 1. sync 3: 2-1-1 = 0, pods ready.
				step(2, 1, 0, 1, up, noWait, r(1, 1), 2, 1),
				// sync 4: 2-1-0 = 1, available 2 > 1: old 1->0. sync 5: 1 + min(2-1, 1) = 2.
				step(4, 0, 1, 0, down, podsReady, r(0, 1), 1, 1),
				step(5, 1, 1, 2, up, noWait, r(0, 2), 2, 1),
				// sync 6: pods ready; sync 7: settled.
			},
			wantOutcome: planner.OutcomeComplete, wantSyncs: 7,
			wantFinal: r(0, 2), wantFinalAvailable: r(0, 2),
		})
	}
	{
		// 1 replica, 25%/25%: surge ceil(0.25) = 1, unavailable floor(0.25) = 0.
		d := web(1).Build()
		old := oldRS(d, "nginx:1.18", 1, 0).Build()
		cases = append(cases, rolloutCase{
			name: "replicas 1: surge one, then remove the old pod",
			d:    d, rss: rsList(old), readiness: planner.ReadinessBatched,
			wantStrategy: &planner.Strategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
				MaxSurgeSpec: "25%", MaxUnavailableSpec: "25%", MaxSurge: 1, MaxUnavailable: 0},
			wantRSs: []string{old.Name, ""},
			wantSteps: []planner.Step{
				// sync 1: min(2-1, 1-0) = 1; maxScaledDown = 2-1-1 = 0. sync 2: pod ready.
				step(1, 1, 0, 1, create, noWait, r(1, 1), 2, 1),
				// sync 3: 2-1-0 = 1, available 2 > 1: old 1->0. sync 4: settled.
				step(3, 0, 1, 0, down, podsReady, r(0, 1), 1, 1),
			},
			wantOutcome: planner.OutcomeComplete, wantSyncs: 4,
			wantFinal: r(0, 1), wantFinalAvailable: r(0, 1),
		})
	}
	{
		// 0 replicas: maxSurge 25% of 0 = 0, and MaxUnavailable is 0 when replicas is 0.
		d := web(0).Build()
		old := oldRS(d, "nginx:1.18", 1, 0).Build() // 0 pods
		cases = append(cases, rolloutCase{
			name: "replicas 0: the new RS is created empty and the rollout is complete",
			d:    d, rss: rsList(old), readiness: planner.ReadinessBatched,
			wantStrategy: &planner.Strategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
				MaxSurgeSpec: "25%", MaxUnavailableSpec: "25%", MaxSurge: 0, MaxUnavailable: 0},
			wantRSs: []string{old.Name, ""},
			wantSteps: []planner.Step{
				// no active RS, no scaling event; NewRSNewReplicas: 0 pods >= maxTotal 0 -> 0.
				step(1, 1, 0, 0, create, noWait, r(0, 0), 0, 0),
			},
			wantOutcome: planner.OutcomeComplete, wantSyncs: 2,
			wantFinal: r(0, 0), wantFinalAvailable: r(0, 0),
		})
	}
	{
		d := web(0).Build()
		// the old RS still runs 3 pods, written for 3 replicas (desired-replicas 3 != 0).
		old := oldRS(d, "nginx:1.18", 1, 0).Replicas(3).DesiredReplicas(3).MaxReplicas(4).Build()
		cases = append(cases, rolloutCase{
			name: "replicas 0 with a template change: scaling event empties the old RS, then create",
			d:    d, rss: rsList(old), readiness: planner.ReadinessBatched,
			wantRSs: []string{old.Name, ""},
			wantSteps: []planner.Step{
				// sync 1: isScalingEvent (3 != 0) -> sync() -> scale(): FindActiveOrLatest is the
				// only active RS, the old one: set to spec.replicas 0.
				step(1, 0, 3, 0, onlyActive, noWait, r(0, 0), 0, 0),
				// sync 2: no active RS, no scaling event; rolloutRolling creates the new RS
				// with 0 pods (0 >= maxTotal 0). sync 3: settled.
				step(2, 1, 0, 0, create, noWait, r(0, 0), 0, 0),
			},
			wantOutcome: planner.OutcomeComplete, wantSyncs: 3,
			wantFinal: r(0, 0), wantFinalAvailable: r(0, 0),
		})
	}
	{
		// Three RSs at 10 replicas, 25%/25%: max 13, minAvailable 8.
		d := web(10).Build()
		old1 := oldRS(d, "nginx:1.17", 1, 0).Replicas(4).Build()
		old2 := oldRS(d, "nginx:1.18", 2, 1).Replicas(6).Build()
		cases = append(cases, rolloutCase{
			name: "several old ReplicaSets are scaled down oldest first",
			d:    d, rss: rsList(old2, old1), readiness: planner.ReadinessBatched,
			wantRSs: []string{old1.Name, old2.Name, ""},
			wantSteps: []planner.Step{
				// sync 1: create min(13-10, 10) = 3; maxScaledDown 13-8-3 = 2, available 10:
				// 2 to go, oldest (old1, 4 pods) first: 4 -> 2.
				step(1, 2, 0, 3, create, noWait, r(4, 6, 3), 13, 10),
				step(1, 0, 4, 2, down, noWait, r(2, 6, 3), 11, 8),
				// sync 2: 3 + min(13-11, 7) = 5. sync 3: 13-8-5 = 0, pods ready.
				step(2, 2, 3, 5, up, noWait, r(2, 6, 5), 13, 8),
				// sync 4: maxScaledDown 13-8-0 = 5; available 2+6+5 = 13, 5 to go: old1
				// min(2, 5) = 2 -> 0, then old2 min(6, 3) = 3 -> 3.
				step(4, 0, 2, 0, down, podsReady, r(0, 6, 5), 11, 11),
				step(4, 1, 6, 3, down, noWait, r(0, 3, 5), 8, 8),
				// sync 5: 5 + min(13-8, 5) = 10. sync 6: 13-8-5 = 0, pods ready.
				step(5, 2, 5, 10, up, noWait, r(0, 3, 10), 13, 8),
				// sync 7: 13-8-0 = 5, available 13: old2 3 -> 0. sync 8: settled.
				step(7, 1, 3, 0, down, podsReady, r(0, 0, 10), 10, 10),
			},
			wantOutcome: planner.OutcomeComplete, wantSyncs: 8,
			wantFinal: r(0, 0, 10), wantFinalAvailable: r(0, 0, 10),
		})
	}
	{
		// 10 replicas, 25%/25%: the new RS exists with 3 available pods; the old RS has 10
		// pods of which 9 are available.
		d := web(10).Build()
		old := oldRS(d, "nginx:1.18", 1, 0).Available(9).Build()
		cur := newRS(d, 2, 1).Replicas(3).Build()
		cases = append(cases, rolloutCase{
			name: "cleanupUnhealthyReplicas removes unavailable old replicas before available ones",
			d:    d, rss: rsList(old, cur), readiness: planner.ReadinessNever,
			wantRSs: []string{old.Name, ""},
			wantSteps: []planner.Step{
				// sync 1: 13 pods, no scale-up. maxScaledDown = 13-8-(3-3) = 5.
				// cleanupUnhealthyReplicas: min(5, 10-9) = 1 -> old 10->9 (available 9+3 = 12);
				// then scaleDownOldReplicaSetsForRollingUpdate: available 9+3 = 12 > 8, 4 to go:
				// old 9 -> 5 (available 5+3).
				step(1, 0, 10, 9, unhealthy, noWait, r(9, 3), 12, 12),
				step(1, 0, 9, 5, down, noWait, r(5, 3), 8, 8),
				// sync 2: 3 + min(13-8, 10-3) = 8. sync 3: 13-8-(8-3) = 0: stalled.
				step(2, 1, 3, 8, up, noWait, r(5, 8), 13, 8),
			},
			wantOutcome: planner.OutcomeStalled, wantSyncs: 3,
			wantFinal: r(5, 8), wantFinalAvailable: r(5, 3),
		})
	}
	{
		// 10 replicas, 25%/25%, 3 of the old pods unavailable from the start.
		d := web(10).Build()
		old := oldRS(d, "nginx:1.18", 1, 0).Available(7).Build()
		cases = append(cases, rolloutCase{
			name: "cleanupUnhealthyReplicas spends the whole budget on unavailable old pods",
			d:    d, rss: rsList(old), readiness: planner.ReadinessNever,
			wantRSs: []string{old.Name, ""},
			wantSteps: []planner.Step{
				// sync 1: create 3; maxScaledDown = 13-8-3 = 2; unhealthy: min(2, 10-7) = 2 ->
				// old 10->8 (available stays 7); available 7 <= 8: no further scale-down.
				step(1, 1, 0, 3, create, noWait, r(10, 3), 13, 7),
				step(1, 0, 10, 8, unhealthy, noWait, r(8, 3), 11, 7),
				// sync 2: 3 + min(13-11, 7) = 5. sync 3: 13-8-5 = 0: stalled.
				step(2, 1, 3, 5, up, noWait, r(8, 5), 13, 7),
			},
			wantOutcome: planner.OutcomeStalled, wantSyncs: 3,
			wantFinal: r(8, 5), wantFinalAvailable: r(7, 0),
		})
	}
	{
		// 3 replicas, 25%/25% -> surge 1, unavailable 0. The new RS was scaled to 5 by hand
		// (its desired-replicas annotation still says 3, so this is no scaling event).
		d := web(3).Build()
		old := oldRS(d, "nginx:1.18", 1, 0).Replicas(2).Build()
		cur := newRS(d, 2, 1).Replicas(5).Build()
		cases = append(cases, rolloutCase{
			name: "a new ReplicaSet above replicas is scaled down to replicas",
			d:    d, rss: rsList(old, cur), readiness: planner.ReadinessBatched,
			wantRSs: []string{old.Name, ""},
			wantSteps: []planner.Step{
				// sync 1: reconcileNewReplicaSet: 5 > 3 -> scale down to 3 and return.
				step(1, 1, 5, 3, downNew, noWait, r(2, 3), 5, 5),
				// sync 2: maxScaledDown = 5-3-0 = 2; available 2+3 = 5 > 3: old 2 -> 0.
				step(2, 0, 2, 0, down, noWait, r(0, 3), 3, 3),
			},
			wantOutcome: planner.OutcomeComplete, wantSyncs: 3,
			wantFinal: r(0, 3), wantFinalAvailable: r(0, 3),
		})
	}
	{
		// Nothing to do: the Deployment's template is the one of its only RS, all available.
		d := testutil.Deployment("web").Replicas(3).Build()
		cur := newRS(d, 1, 0).Build()
		cases = append(cases, rolloutCase{
			name: "no change: the controller writes nothing",
			d:    d, rss: rsList(cur), readiness: planner.ReadinessBatched,
			wantRSs:     []string{""},
			wantOutcome: planner.OutcomeNoChange, wantSyncs: 1,
			wantFinal: r(3), wantFinalAvailable: r(3),
		})
	}

	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { checkRollout(t, tc) })
	}
}

func TestSimulateRecreate(t *testing.T) {
	var cases []rolloutCase
	{
		d := web(3).Strategy(testutil.Recreate()).Build()
		old := oldRS(d, "nginx:1.18", 1, 0).Build() // 3 pods, max-replicas 3+0
		cases = append(cases, rolloutCase{
			name: "old to 0, then the new RS is created at replicas once old pods are gone",
			d:    d, rss: rsList(old), readiness: planner.ReadinessBatched,
			wantStrategy: &planner.Strategy{Type: appsv1.RecreateDeploymentStrategyType},
			wantRSs:      []string{old.Name, ""},
			wantSteps: []planner.Step{
				// sync 1: scaleDownOldReplicaSetsForRecreate: old 3 -> 0; scaled, return.
				step(1, 0, 3, 0, recreate0, noWait, r(0, 0), 0, 0),
				// sync 2: no old pods left (status.replicas 0): getNewReplicaSet creates the RS
				// with NewRSNewReplicas = replicas = 3 (Recreate); scaleUp finds 3 = 3.
				step(2, 1, 0, 3, create, oldPodsGone, r(0, 3), 3, 0),
				// sync 3: nothing, pods ready; sync 4: settled.
			},
			wantOutcome: planner.OutcomeComplete, wantSyncs: 4,
			wantFinal: r(0, 3), wantFinalAvailable: r(0, 3),
		})
	}
	{
		d := web(3).Strategy(testutil.Recreate()).Build()
		old := oldRS(d, "nginx:1.18", 1, 0).Build()
		cases = append(cases, rolloutCase{
			name: "under never the new pods never become available",
			d:    d, rss: rsList(old), readiness: planner.ReadinessNever,
			wantRSs: []string{old.Name, ""},
			wantSteps: []planner.Step{
				step(1, 0, 3, 0, recreate0, noWait, r(0, 0), 0, 0),
				step(2, 1, 0, 3, create, oldPodsGone, r(0, 3), 3, 0),
			},
			wantOutcome: planner.OutcomeStalled, wantSyncs: 3,
			wantFinal: r(0, 3), wantFinalAvailable: r(0, 0),
		})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { checkRollout(t, tc) })
	}
}

func TestSimulateScalingAndPaused(t *testing.T) {
	var cases []rolloutCase
	{
		// Mid-rollout at 10 replicas (old 6 available, new 4 unavailable, both annotated
		// desired 10 / max 13), the user scales to 12: maxSurge ceil(3) = 3, maxUnavailable
		// 3, allowed size 12+3 = 15, minAvailable 9.
		d := web(12).Build()
		old := oldRS(d, "nginx:1.18", 1, 0).Replicas(6).DesiredReplicas(10).MaxReplicas(13).Build()
		cur := newRS(d, 2, 1).Replicas(4).DesiredReplicas(10).MaxReplicas(13).Available(0).Build()
		cases = append(cases, rolloutCase{
			name: "a scale-up during a rollout is proportional, leftovers to the largest RS",
			d:    d, rss: rsList(old, cur), readiness: planner.ReadinessNever,
			wantRSs: []string{old.Name, ""},
			wantSteps: []planner.Step{
				// sync 1: desired-replicas 10 != 12: scaling event -> scale(). toAdd = 15-10 = 5;
				// ReplicaSetsBySizeNewer: old (6), new (4).
				// old: round(6*15/13 = 6.92) - 6 = +1; new: round(4*15/13 = 4.62) - 4 = +1;
				// added 2, leftover 5-2 = 3 to the first (largest): old 6+1+3 = 10, new 5.
				step(1, 0, 6, 10, proportion, noWait, r(10, 4), 14, 6),
				step(1, 1, 4, 5, proportion, noWait, r(10, 5), 15, 6),
				// sync 2: annotations say 12 now; rolling. 15 pods = max, no scale-up;
				// maxScaledDown = 15-9-5 = 1; old has 10-6 = 4 unavailable: cleanup 1, 10 -> 9;
				// available 6 <= 9: no further scale-down.
				step(2, 0, 10, 9, unhealthy, noWait, r(9, 5), 14, 6),
				// sync 3: 5 + min(15-14, 12-5) = 6. sync 4: 15-9-6 = 0: stalled.
				step(3, 1, 5, 6, up, noWait, r(9, 6), 15, 6),
			},
			wantOutcome: planner.OutcomeStalled, wantSyncs: 4,
			wantFinal: r(9, 6), wantFinalAvailable: r(6, 0),
		})
	}
	{
		// Paused mid-rollout at 10 replicas, 25%/25% (allowed size 13): old 8, new 3, all
		// available, annotations desired 10 / max 13.
		d := web(10).Paused(true).Build()
		old := oldRS(d, "nginx:1.18", 1, 0).Replicas(8).Build()
		cur := newRS(d, 2, 1).Replicas(3).Build()
		cases = append(cases, rolloutCase{
			name: "a paused Deployment mid-rollout is topped up to replicas+maxSurge",
			d:    d, rss: rsList(old, cur), readiness: planner.ReadinessBatched,
			wantRSs: []string{old.Name, ""},
			wantSteps: []planner.Step{
				// sync 1: paused -> sync() -> scale(): two active RSs, new not saturated;
				// toAdd = 13-11 = 2; old: round(8*13/13) - 8 = 0, new: 0; leftover 2 to the
				// largest, old: 8 -> 10; new unchanged (annotations already 10/13: no write).
				step(1, 0, 8, 10, proportion, noWait, r(10, 3), 13, 11),
				// sync 2: toAdd 0, nothing; pods ready. sync 3: settled. Never rolled out.
			},
			wantOutcome: planner.OutcomePaused, wantSyncs: 3,
			wantFinal: r(10, 3), wantFinalAvailable: r(10, 3),
		})
	}
	{
		// Paused before the rollout starts: a template change is pending.
		d := web(10).Paused(true).Build()
		old := oldRS(d, "nginx:1.18", 1, 0).Build()
		cases = append(cases, rolloutCase{
			name: "paused with a pending template change writes nothing and creates no RS",
			d:    d, rss: rsList(old), readiness: planner.ReadinessBatched,
			// scale(): FindActiveOrLatest = old, already at 10. No write.
			wantRSs:     []string{old.Name},
			wantOutcome: planner.OutcomePaused, wantSyncs: 1,
			wantFinal: r(10), wantFinalAvailable: r(10),
		})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { checkRollout(t, tc) })
	}
}

// r2 lists ReplicaSets in the order given (the planner must sort them itself).
func rsList(rss ...*appsv1.ReplicaSet) []*appsv1.ReplicaSet { return rss }
