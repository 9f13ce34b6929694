package planner_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/deployutil"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// source yields the choices of a generated scenario; intn returns a value in [0, n).
type source interface{ intn(n int) int }

// randSource draws from a seeded PRNG (the property test).
type randSource struct{ r *rand.Rand }

func (s randSource) intn(n int) int { return s.r.IntN(n) }

// byteSource draws from fuzzer bytes, one byte per choice, 0 once they run out.
type byteSource struct{ data []byte }

func (s *byteSource) intn(n int) int {
	if len(s.data) == 0 || n <= 1 {
		return 0
	}
	v := int(s.data[0])
	s.data = s.data[1:]
	return v % n
}

func pick[T any](src source, choices ...T) T { return choices[src.intn(len(choices))] }

// fenceposts are the maxSurge/maxUnavailable values scenarios draw from, absolute and percent
// (both "0" is invalid for the API server; the planner resolves it as the controller does).
var fenceposts = []string{"0", "1", "2", "3", "5", "0%", "10%", "25%", "33%", "50%", "100%"}

// genScenario builds a Deployment whose template changed to nginx:new, with 0-4 old
// ReplicaSets and maybe an existing new one, of any sizes and availability (available <=
// replicas), with replica annotations mostly written for the Deployment's replicas and
// sometimes stale or missing (a scaling event), maybe paused, under any readiness model.
func genScenario(src source) planner.Input {
	replicas := int32(pick(src, 0, 1, 2, 3, 4, 5, 10, 13, 25, src.intn(40)))
	db := testutil.Deployment("web").Replicas(replicas).Image("nginx:new")
	if src.intn(5) == 0 {
		db.Strategy(testutil.Recreate())
	} else {
		db.Strategy(testutil.RollingUpdate(pick(src, fenceposts...), pick(src, fenceposts...)))
	}
	if src.intn(8) == 0 {
		db.Paused(true)
	}
	if src.intn(4) == 0 {
		db.RevisionHistoryLimit(int32(src.intn(3)))
	}
	d := db.Build()
	annotate := func(b *testutil.ReplicaSetBuilder, size int32) *testutil.ReplicaSetBuilder {
		b.Replicas(size).Available(int32(src.intn(int(size) + 1)))
		switch src.intn(8) {
		case 0:
			b.DesiredReplicas(int32(src.intn(30)))
		case 1:
			b.NoReplicaAnnotations()
		}
		switch src.intn(8) {
		case 0:
			b.MaxReplicas(int32(src.intn(40)))
		case 1:
			b.Annotation(deployutil.MaxReplicasAnnotation, "")
		}
		return b
	}
	size := func() int32 {
		if src.intn(3) == 0 {
			return 0
		}
		return int32(src.intn(16))
	}
	var rss []*appsv1.ReplicaSet
	nOld := src.intn(5)
	for i := range nOld {
		b := testutil.ReplicaSetFor(d).Image("nginx:1." + strconv.Itoa(i)).Revision(int64(i + 1)).Created(i)
		rss = append(rss, annotate(b, size()).Build())
	}
	switch src.intn(4) {
	case 0: // in flight: the newest ReplicaSet is the new one
		rss = append(rss, annotate(testutil.ReplicaSetFor(d).Revision(int64(nOld+1)).Created(nOld), size()).Build())
	case 1: // a rollback: the new one is an old revision
		rss = append(rss, annotate(testutil.ReplicaSetFor(d).Revision(int64(src.intn(nOld+1))).Created(-1), size()).Build())
	}
	// The three models without time (timed needs a Timing: TestTimedInvariants).
	readiness := pick(src, planner.ReadinessBatched, planner.ReadinessInstant, planner.ReadinessNever)
	return planner.Input{Deployment: d, ReplicaSets: rss, Readiness: readiness}
}

// describe renders a scenario in one line for failure messages.
func describe(in planner.Input) string {
	d := in.Deployment
	var b strings.Builder
	fmt.Fprintf(&b, "replicas=%d strategy=%s", *d.Spec.Replicas, d.Spec.Strategy.Type)
	if ru := d.Spec.Strategy.RollingUpdate; ru != nil {
		fmt.Fprintf(&b, " maxSurge=%s maxUnavailable=%s", ru.MaxSurge, ru.MaxUnavailable)
	}
	fmt.Fprintf(&b, " paused=%v readiness=%s revisionHistoryLimit=%d", d.Spec.Paused, in.Readiness, *d.Spec.RevisionHistoryLimit)
	for _, rs := range in.ReplicaSets {
		role := "old"
		if deployutil.EqualIgnoreHash(&rs.Spec.Template, &d.Spec.Template) {
			role = "new"
		}
		fmt.Fprintf(&b, "; %s rev=%s created=%s replicas=%d available=%d desired=%q max=%q",
			role, rs.Annotations[deployutil.RevisionAnnotation], rs.CreationTimestamp.UTC().Format("15:04"), *rs.Spec.Replicas,
			rs.Status.AvailableReplicas, rs.Annotations[deployutil.DesiredReplicasAnnotation], rs.Annotations[deployutil.MaxReplicasAnnotation])
	}
	return b.String()
}

// startFacts are what the invariants need to know about a start state, read from the input
// (not from the plan).
type startFacts struct {
	replicas        int32
	rolling, paused bool
	// scalingEvent: an active ReplicaSet's desired-replicas annotation parses and differs
	// from spec.replicas (isScalingEvent, sync.go): the sync goes through sync()/scale().
	scalingEvent bool
	// scalingDeadlock: a scaling event that scale() never resolves, so that every sync is the
	// same scaling event and nothing is rolled out (the real controller does this too):
	//  - exactly one active ReplicaSet, already at spec.replicas, with a stale
	//    desired-replicas annotation: FindActiveOrLatest returns it and scale() returns
	//    without a write, so the annotation stays stale;
	//  - Recreate with two or more active ReplicaSets and a new one that is not saturated and
	//    does not become so (batched makes its pods available): scale() has no branch for it.
	scalingDeadlock bool
	// lone names the one active ReplicaSet of a lone scaling deadlock: when it is the new
	// one, the deadlock is harmless (its pods are the updated ones; the rollout is complete
	// once they are available) and a stall waits for pods, not for the annotation.
	lone             string
	total, available int32
}

func factsOf(in planner.Input) startFacts {
	d := in.Deployment
	f := startFacts{
		replicas: *d.Spec.Replicas,
		rolling:  d.Spec.Strategy.Type == appsv1.RollingUpdateDeploymentStrategyType,
		paused:   d.Spec.Paused,
	}
	var active []*appsv1.ReplicaSet
	saturated := false
	for _, rs := range in.ReplicaSets {
		f.total += *rs.Spec.Replicas
		f.available += rs.Status.AvailableReplicas
		desired, err := strconv.ParseUint(rs.Annotations[deployutil.DesiredReplicasAnnotation], 10, 31)
		// IsSaturated: the new ReplicaSet (active or not) at spec.replicas, all available,
		// desired-replicas = spec.replicas. Under batched its pods become available when the
		// controller rests, so it saturates then.
		if deployutil.EqualIgnoreHash(&rs.Spec.Template, &d.Spec.Template) && err == nil && int32(desired) == f.replicas &&
			*rs.Spec.Replicas == f.replicas && (rs.Status.AvailableReplicas == f.replicas || in.Readiness == planner.ReadinessBatched) {
			saturated = true
		}
		if *rs.Spec.Replicas == 0 {
			continue
		}
		active = append(active, rs)
		if err == nil && int32(desired) != f.replicas {
			f.scalingEvent = true
		}
	}
	if f.scalingEvent {
		lone := len(active) == 1 && *active[0].Spec.Replicas == f.replicas
		if lone {
			f.lone = active[0].Name
		}
		recreateStuck := !f.rolling && len(active) >= 2 && !saturated
		f.scalingDeadlock = lone || recreateStuck
	}
	return f
}

// checkInvariants simulates in and checks what must hold for every valid input. The bounds
// hold only from some starts (see the comments); the rest holds always.
func checkInvariants(t *testing.T, in planner.Input) {
	t.Helper()
	var before []*appsv1.ReplicaSet
	for _, rs := range in.ReplicaSets {
		before = append(before, rs.DeepCopy())
	}
	dBefore := in.Deployment.DeepCopy()

	plan, err := planner.Simulate(in)
	if err != nil {
		// Termination: valid input always settles within the built-in guard.
		t.Fatalf("Simulate: %v\nscenario: %s", err, describe(in))
	}
	fail := func(format string, args ...any) {
		t.Helper()
		t.Errorf(format+"\nscenario: %s", append(args, describe(in))...)
	}
	f := factsOf(in)
	n := len(plan.ReplicaSets)
	newIdx := slices.IndexFunc(plan.ReplicaSets, func(rs planner.ReplicaSetInfo) bool { return rs.New })

	// Simulate does not modify its input and is deterministic.
	// (reflect.DeepEqual first: cmp.Diff is slow, and this runs thousands of times.)
	if !reflect.DeepEqual(dBefore, in.Deployment) {
		fail("Simulate modified the Deployment (-before +after):\n%s", cmp.Diff(dBefore, in.Deployment))
	}
	if !reflect.DeepEqual(before, in.ReplicaSets) {
		fail("Simulate modified the ReplicaSets (-before +after):\n%s", cmp.Diff(before, in.ReplicaSets))
	}
	again, err := planner.Simulate(in)
	if err != nil {
		t.Fatalf("second Simulate: %v", err)
	}
	if !reflect.DeepEqual(plan, again) {
		fail("two Simulate calls differ (-first +second):\n%s", cmp.Diff(plan, again))
	}

	// Shapes.
	if len(plan.Initial) != n || len(plan.InitialAvailable) != n || len(plan.Final) != n || len(plan.FinalAvailable) != n {
		fail("Initial/Final have %d/%d/%d/%d entries for %d ReplicaSets", len(plan.Initial), len(plan.InitialAvailable), len(plan.Final), len(plan.FinalAvailable), n)
		return
	}
	if plan.Syncs < 1 {
		fail("Syncs = %d, want at least 1", plan.Syncs)
	}
	if f.replicas != plan.Replicas {
		fail("Plan.Replicas = %d, want %d", plan.Replicas, f.replicas)
	}

	// A paused Deployment's syncs run cleanupDeployment (sync()): the ReplicaSets it deletes
	// during the plan drop to 0 replicas without a step. (Otherwise Cleanup is a forecast for
	// after the plan.)
	deleted := make([]bool, n)
	if f.paused {
		for _, c := range plan.Cleanup {
			if i := slices.IndexFunc(plan.ReplicaSets, func(rs planner.ReplicaSetInfo) bool { return rs.Name == c.Name }); i >= 0 {
				deleted[i] = true
			} else {
				fail("Cleanup names %s, which is not in ReplicaSets", c.Name)
			}
		}
	}

	// Every step's snapshot is the previous one with exactly the written RS changed from From
	// to To (and deleted ones at 0); Total is its sum; Available is between 0 and Total; Sync
	// is non-decreasing and within Syncs.
	prev := plan.Initial
	prevSync := 1
	creates := 0
	for i, st := range plan.Steps {
		if len(st.Replicas) != n || st.ReplicaSet < 0 || st.ReplicaSet >= n {
			fail("step %d: %d replicas for %d ReplicaSets, index %d", i, len(st.Replicas), n, st.ReplicaSet)
			return
		}
		if st.Sync < prevSync || st.Sync > plan.Syncs {
			fail("step %d: sync %d after sync %d (of %d)", i, st.Sync, prevSync, plan.Syncs)
		}
		prevSync = st.Sync
		if st.From != prev[st.ReplicaSet] || st.Replicas[st.ReplicaSet] != st.To {
			fail("step %d: %d -> %d on RS %d, but before it had %d and after %d", i, st.From, st.To, st.ReplicaSet, prev[st.ReplicaSet], st.Replicas[st.ReplicaSet])
		}
		var total int32
		for j, v := range st.Replicas {
			total += v
			if j != st.ReplicaSet && v != prev[j] && !(deleted[j] && v == 0) {
				fail("step %d writes RS %d but RS %d changed %d -> %d", i, st.ReplicaSet, j, prev[j], v)
			}
		}
		if st.To < 0 || st.Total != total || st.Available < 0 || st.Available > st.Total {
			fail("step %d: to %d, total %d (sum %d), available %d", i, st.To, st.Total, total, st.Available)
		}
		if st.Create {
			creates++
			if st.ReplicaSet != newIdx || st.From != 0 || plan.Initial[newIdx] != 0 || plan.NewReplicaSet.Exists {
				fail("step %d creates RS %d from %d (new RS %d, exists %v)", i, st.ReplicaSet, st.From, newIdx, plan.NewReplicaSet.Exists)
			}
		} else if st.From == st.To {
			fail("step %d writes %d -> %d: not a change", i, st.From, st.To)
		}
		if st.Wait == planner.WaitPodsAvailable && in.Readiness == planner.ReadinessNever {
			fail("step %d waits for pods to become available under never", i)
		}
		if st.Wait == planner.WaitOldPodsTerminated && (f.rolling || st.ReplicaSet != newIdx) {
			fail("step %d waits for old pods to terminate outside a Recreate scale-up of the new RS", i)
		}
		prev = st.Replicas
	}
	if creates > 1 || (creates == 1) != plan.NewReplicaSet.Created {
		fail("%d create steps, NewReplicaSet.Created %v", creates, plan.NewReplicaSet.Created)
	}
	last := slices.Clone(prev)
	for i := range last {
		if deleted[i] {
			last[i] = 0
		}
	}
	if !slices.Equal(last, plan.Final) {
		fail("Final differs from the last step's replicas, deleted ReplicaSets at 0 (-last +final):\n%s", cmp.Diff(last, plan.Final))
	}
	for i := range plan.Final {
		if plan.FinalAvailable[i] < 0 || plan.FinalAvailable[i] > plan.Final[i] {
			fail("RS %d ends with %d available of %d", i, plan.FinalAvailable[i], plan.Final[i])
		}
	}

	// Outcomes.
	switch plan.Outcome {
	case planner.OutcomeNoChange:
		if len(plan.Steps) > 0 {
			fail("NoChange with %d steps", len(plan.Steps))
		}
	case planner.OutcomeComplete, planner.OutcomeStalled:
	case planner.OutcomePaused:
		if !f.paused {
			fail("Outcome Paused for a Deployment that is not paused")
		}
	default:
		fail("unknown outcome %q", plan.Outcome)
	}
	if plan.Outcome == planner.OutcomeComplete || plan.Outcome == planner.OutcomeNoChange {
		for i := range plan.Final {
			want := int32(0)
			if i == newIdx {
				want = f.replicas
			}
			if plan.Final[i] != want || plan.FinalAvailable[i] != want {
				fail("%s but RS %d ends at %d (%d available), want %d", plan.Outcome, i, plan.Final[i], plan.FinalAvailable[i], want)
			}
		}
	}
	if f.paused && creates > 0 {
		fail("a paused Deployment created the new ReplicaSet")
	}
	// Termination with completion, for a Deployment that is not paused and not in a scaling
	// deadlock: under batched every pod becomes available whenever the controller rests, so
	// the rollout always completes; under instant pods become available only after a sync
	// that wrote, so it completes from a start where every pod is available (from another
	// start, a first sync that writes nothing ends the plan with the pods as they were).
	// In a scaling deadlock the controller writes nothing and the plan says so.
	if !f.paused && !f.scalingDeadlock {
		healthy := f.available == f.total
		// Under timed every pod becomes available at its time, so it completes too.
		if in.Readiness == planner.ReadinessBatched || in.Readiness == planner.ReadinessTimed || (in.Readiness == planner.ReadinessInstant && healthy) {
			if plan.Outcome != planner.OutcomeComplete && plan.Outcome != planner.OutcomeNoChange {
				fail("Outcome %s (%s) under %s readiness, want Complete or NoChange", plan.Outcome, plan.StalledReason, in.Readiness)
			}
		}
	}
	if !f.paused && f.scalingDeadlock && (len(plan.Steps) > 0 || (plan.Outcome != planner.OutcomeStalled && plan.Outcome != planner.OutcomeNoChange)) {
		fail("a scaling deadlock, but the plan has %d steps and ends %s", len(plan.Steps), plan.Outcome)
	}
	loneNew := f.lone != "" && f.lone == plan.NewReplicaSet.Name
	if !f.paused && f.scalingDeadlock && !loneNew && plan.Outcome == planner.OutcomeStalled && !strings.Contains(plan.StalledReason, "every sync is a scaling event") {
		fail("a scaling deadlock, but the stall reason does not say so: %q", plan.StalledReason)
	}
	if !f.paused && f.scalingDeadlock && loneNew && plan.Outcome == planner.OutcomeStalled && !strings.Contains(plan.StalledReason, "complete as soon as they are") {
		fail("a stale desired-replicas annotation on the lone new ReplicaSet waits only for pods, but the stall reason says: %q", plan.StalledReason)
	}

	// Bounds on the total, from a start that is not paused and has no scaling event (paused
	// syncs and scaling events go through scale(), whose proportional writes may overshoot
	// between two writes of one sync, and whose leftover and rounding can leave the total
	// anywhere):
	//  - RollingUpdate: a write never raises the total above replicas+maxSurge
	//    (NewRSNewReplicas caps scale-ups there, everything else scales down), so from a
	//    start within replicas+maxSurge every step's total is within it, and from a start
	//    above it the total never exceeds the start.
	//  - Recreate: old ReplicaSets go to 0 before the new one is set to replicas, so the total
	//    never exceeds max(start, replicas).
	if !f.paused && !f.scalingEvent {
		limit := f.replicas
		if f.rolling {
			limit += plan.Strategy.MaxSurge
		}
		for i, st := range plan.Steps {
			if st.Total > max(f.total, limit) {
				fail("step %d: total %d above max(start %d, %d)", i, st.Total, f.total, limit)
			}
			if f.rolling && st.To > st.From && st.Total > limit {
				fail("step %d scales up %d -> %d to a total of %d, above replicas+maxSurge %d", i, st.From, st.To, st.Total, limit)
			}
		}
	}
	// Availability, RollingUpdate, not paused, no scaling event, and at least minAvailable =
	// replicas-maxUnavailable pods available at the start (a healthy start: every pod
	// available and the total within bounds, is one such start): no step takes the available
	// pods below minAvailable. cleanupUnhealthyReplicas removes only unavailable pods and
	// scaleDownOldReplicaSetsForRollingUpdate removes at most available-minAvailable.
	if f.rolling && !f.paused && !f.scalingEvent {
		minAvailable := f.replicas - plan.Strategy.MaxUnavailable
		if f.available >= minAvailable {
			for i, st := range plan.Steps {
				if st.Available < minAvailable {
					fail("step %d: %d available, below minAvailable %d (start had %d)", i, st.Available, minAvailable, f.available)
				}
			}
		}
	}
}

// checkTimes checks the time fields: none without timed; under timed, steps in time order,
// none after Duration, and a deadline only with one set, within the plan or after it.
func checkTimes(t *testing.T, in planner.Input, plan *planner.Plan) {
	t.Helper()
	var last time.Duration
	for i, st := range plan.Steps {
		if in.Readiness != planner.ReadinessTimed && st.At != 0 {
			t.Errorf("step %d at %s under %s, which has no time", i, st.At, in.Readiness)
		}
		if st.At < last {
			t.Errorf("step %d at %s, before the previous step at %s", i, st.At, last)
		}
		last = st.At
	}
	if last > plan.Duration {
		t.Errorf("the last step at %s is after the plan's duration %s", last, plan.Duration)
	}
	if in.Readiness != planner.ReadinessTimed && (plan.Duration != 0 || plan.ProgressDeadlineAt != nil) {
		t.Errorf("duration %s, deadline %v under %s, which has no time", plan.Duration, plan.ProgressDeadlineAt, in.Readiness)
	}
	if at := plan.ProgressDeadlineAt; at != nil && (*at < 0 || in.Deployment.Spec.Paused) {
		t.Errorf("progress deadline at %s (paused %v)", *at, in.Deployment.Spec.Paused)
	}
}

// TestSimulateTimedInvariants checks the invariants under timed, on the generated scenarios
// with 1-3 ready-after values each.
func TestSimulateTimedInvariants(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 200
	}
	src := randSource{rand.New(rand.NewPCG(20260101, 10))}
	outcomes := map[planner.Outcome]int{}
	deadlines := 0
	for i := range n {
		in := genScenario(src)
		in.Readiness = planner.ReadinessTimed
		tm := &planner.Timing{}
		for range 1 + src.intn(3) {
			tm.ReadyAfter = append(tm.ReadyAfter, pick(src, 0, time.Second, 2*time.Second, 5*time.Second, 700*time.Second))
		}
		in.Timing = tm
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			checkInvariants(t, in)
			plan, err := planner.Simulate(in)
			if err != nil {
				return
			}
			checkTimes(t, in, plan)
			outcomes[plan.Outcome]++
			if plan.ProgressDeadlineAt != nil {
				deadlines++
			}
		})
	}
	if outcomes[planner.OutcomeComplete] == 0 || deadlines == 0 {
		t.Errorf("the generator reaches too little under timed: outcomes %v, %d with a deadline", outcomes, deadlines)
	}
	t.Logf("outcomes of %d timed scenarios: %v, %d pass the progress deadline", n, outcomes, deadlines)
}

// TestSimulateInvariants checks the invariants on many generated scenarios (fixed seed, so
// a failure reproduces; the scenario is printed).
func TestSimulateInvariants(t *testing.T) {
	n := 2000
	if testing.Short() {
		n = 300
	}
	src := randSource{rand.New(rand.NewPCG(20260101, 3))}
	outcomes := map[planner.Outcome]int{}
	for i := range n {
		in := genScenario(src)
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			checkInvariants(t, in)
			if plan, err := planner.Simulate(in); err == nil {
				checkTimes(t, in, plan)
				outcomes[plan.Outcome]++
			}
		})
	}
	// The generator must reach every outcome, or the invariants above test little.
	for _, o := range []planner.Outcome{planner.OutcomeComplete, planner.OutcomeStalled, planner.OutcomeNoChange, planner.OutcomePaused} {
		if outcomes[o] == 0 {
			t.Errorf("no generated scenario ends %s (outcomes %v)", o, outcomes)
		}
	}
	t.Logf("outcomes of %d scenarios: %v", n, outcomes)
}

// FuzzSimulate checks the invariants on scenarios decoded from fuzzer bytes. Its seed corpus
// (a few hand-made byte strings and some drawn from a fixed seed) runs under plain go test;
// `go test -fuzz FuzzSimulate ./pkg/planner` explores further.
func FuzzSimulate(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{6, 0, 1, 7, 7, 0, 1, 1, 10, 10, 0, 0, 0, 0, 0, 0, 2}) // 10 replicas, one old RS
	f.Add([]byte{3, 0, 0, 0, 1, 3, 15, 2, 5, 5, 0, 3, 12, 0, 0, 1})    // Recreate
	f.Add([]byte{6, 1, 8, 3, 0, 4, 7, 9, 3, 5, 8, 1, 0, 9, 2, 6, 4, 1, 1})
	r := rand.New(rand.NewPCG(7, 11))
	for range 16 {
		b := make([]byte, 48)
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkInvariants(t, genScenario(&byteSource{data: data}))
	})
}
