package planner_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// surge1Input is the rollout of issue 2's performance demand: replicas pods, maxSurge=1,
// maxUnavailable=0, one old ReplicaSet with every pod available, batched readiness. The
// controller surges one pod and removes one old pod per round: 2*replicas steps.
func surge1Input(replicas int32) planner.Input {
	d := testutil.Deployment("web").Replicas(replicas).MaxSurge("1").MaxUnavailable("0").Image("nginx:1.19").Build()
	old := testutil.ReplicaSetFor(d).Image("nginx:1.18").Revision(1).Build()
	return planner.Input{Deployment: d, ReplicaSets: rsList(old), Readiness: planner.ReadinessBatched}
}

func benchmarkSurge1(b *testing.B, replicas int32) {
	in := surge1Input(replicas)
	var steps int
	b.ReportAllocs()
	for b.Loop() {
		plan, err := planner.Simulate(in)
		if err != nil {
			b.Fatal(err)
		}
		steps = len(plan.Steps)
	}
	if want := 2 * int(replicas); steps != want {
		b.Fatalf("%d steps, want %d (one surge and one scale-down per pod)", steps, want)
	}
	b.ReportMetric(float64(steps), "steps/op")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(steps), "ns/step")
}

// BenchmarkSimulate100kSurge1 plans 100,000 replicas with maxSurge=1, maxUnavailable=0
// (200,000 steps). Issue 2 demands well under a second and memory proportional to the plan.
func BenchmarkSimulate100kSurge1(b *testing.B) { benchmarkSurge1(b, 100_000) }

// BenchmarkSimulate1kSurge1 is the same rollout at 1,000 replicas (2,000 steps), to compare
// the cost per step.
func BenchmarkSimulate1kSurge1(b *testing.B) { benchmarkSurge1(b, 1_000) }

// TestSimulateSurge1Shape checks the plan the benchmarks measure, at a size a unit test
// affords: the first rounds, and the end.
func TestSimulateSurge1Shape(t *testing.T) {
	const replicas = 1000
	plan := simulate(t, surge1Input(replicas))
	if len(plan.Steps) != 2*replicas {
		t.Fatalf("%d steps, want %d", len(plan.Steps), 2*replicas)
	}
	// 1000 replicas, surge 1, unavailable 0: at most 1001 pods, minAvailable 1000.
	// sync 1 creates new at min(1001-1000, 1000) = 1; then each round: pods ready, old -1
	// (maxScaledDown 1001-1000-0 = 1), new +1 (1001-1000 = 1 free), three syncs per round.
	want := []planner.Step{
		step(1, 1, 0, 1, create, noWait, r(1000, 1), 1001, 1000),
		step(3, 0, 1000, 999, down, podsReady, r(999, 1), 1000, 1000),
		step(4, 1, 1, 2, up, noWait, r(999, 2), 1001, 1000),
		step(6, 0, 999, 998, down, podsReady, r(998, 2), 1000, 1000),
	}
	if diff := cmp.Diff(want, plan.Steps[:4]); diff != "" {
		t.Errorf("first steps (-want +got):\n%s", diff)
	}
	// The last round: old 1 -> 0 once new has 1000 pods, in sync 3*1000.
	last := step(3*replicas, 0, 1, 0, down, podsReady, r(0, 1000), 1000, 1000)
	if diff := cmp.Diff([]planner.Step{last}, plan.Steps[len(plan.Steps)-1:]); diff != "" {
		t.Errorf("last step (-want +got):\n%s", diff)
	}
	if plan.Outcome != planner.OutcomeComplete || plan.Syncs != 3*replicas+1 {
		t.Errorf("Outcome %s after %d syncs, want Complete after %d", plan.Outcome, plan.Syncs, 3*replicas+1)
	}
}

func benchmarkTimed(b *testing.B, replicas int32, surge, unavailable string, readyAfter ...time.Duration) {
	d := testutil.Deployment("web").Replicas(replicas).MaxSurge(surge).MaxUnavailable(unavailable).Image("nginx:1.19").Build()
	old := testutil.ReplicaSetFor(d).Image("nginx:1.18").Revision(1).Build()
	in := planner.Input{Deployment: d, ReplicaSets: rsList(old), Readiness: planner.ReadinessTimed, Timing: &planner.Timing{ReadyAfter: readyAfter}}
	var plan *planner.Plan
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if plan, err = planner.Simulate(in); err != nil {
			b.Fatal(err)
		}
	}
	if plan.Outcome != planner.OutcomeComplete {
		b.Fatalf("outcome %s, want Complete", plan.Outcome)
	}
	b.ReportMetric(float64(len(plan.Steps)), "steps/op")
}

// BenchmarkSimulateTimed1kSurge1 plans 1,000 replicas, maxSurge 1, maxUnavailable 0, under
// timed with pods Ready after 1..4 s in turn: one write per pod event.
func BenchmarkSimulateTimed1kSurge1(b *testing.B) {
	benchmarkTimed(b, 1000, "1", "0", time.Second, 2*time.Second, 4*time.Second, 3*time.Second)
}

// BenchmarkSimulateTimed10k25 plans 10,000 replicas 25%/25% under timed, pods Ready after 1..4 s.
func BenchmarkSimulateTimed10k25(b *testing.B) {
	benchmarkTimed(b, 10000, "25%", "25%", time.Second, 2*time.Second, 4*time.Second, 3*time.Second)
}
