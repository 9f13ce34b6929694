package drive

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// row is a compact view of a step for table tests: new from->to, then every old scale.
type row struct {
	New   string
	Old   string
	Pods  int32
	Extra bool
	Avail int32 // AvailableAfter
}

func rows(steps []Step) []row {
	var out []row
	for _, st := range steps {
		r := row{New: fmt.Sprintf("%d->%d", st.New.From, st.New.To), Pods: st.Pods, Extra: st.ExtraPod, Avail: st.AvailableAfter}
		if st.Create {
			r.New = "create " + r.New
		}
		for i, o := range st.Old {
			if i > 0 {
				r.Old += " "
			}
			r.Old += fmt.Sprintf("%s:%d->%d", o.Name, o.From, o.To)
		}
		out = append(out, r)
	}
	return out
}

func strategy(surge, unavailable string) appsv1.DeploymentStrategy {
	s, u := intstr.Parse(surge), intstr.Parse(unavailable)
	return appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
		RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &s, MaxUnavailable: &u}}
}

func mustBounds(t testing.TB, replicas int32, surge, unavailable string) Bounds {
	t.Helper()
	b, err := ResolveBounds(replicas, strategy(surge, unavailable))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestResolveBounds(t *testing.T) {
	cases := []struct {
		name                 string
		replicas             int32
		surge, unavailable   string
		want                 Bounds
		wantMin, wantMaxPods int32
	}{
		{"25%/25% of 10: surge rounds up, unavailable down", 10, "25%", "25%", Bounds{10, 3, 2}, 8, 13},
		{"maxSurge 0 keeps unavailable", 10, "0", "25%", Bounds{10, 0, 2}, 8, 10},
		{"maxUnavailable 0", 10, "25%", "0", Bounds{10, 3, 0}, 10, 13},
		{"both 0 resolve to unavailable 1", 4, "0%", "0%", Bounds{4, 0, 1}, 3, 4},
		{"unavailable capped at replicas", 2, "1", "5", Bounds{2, 1, 2}, 0, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := mustBounds(t, tc.replicas, tc.surge, tc.unavailable)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("bounds (-want +got):\n%s", diff)
			}
			if got.MinAvailable() != tc.wantMin || got.MaxPods() != tc.wantMaxPods {
				t.Errorf("MinAvailable, MaxPods = %d, %d; want %d, %d", got.MinAvailable(), got.MaxPods(), tc.wantMin, tc.wantMaxPods)
			}
		})
	}
	if _, err := ResolveBounds(3, appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}); err == nil {
		t.Error("Recreate: want an error")
	}
}

func TestPlanSteps(t *testing.T) {
	fresh := func(old int32) Start {
		return Start{New: Counts{Name: "new"}, Old: []Counts{{Name: "old", Replicas: old, Available: old}}}
	}
	cases := []struct {
		name   string
		bounds Bounds
		start  Start
		want   []row
	}{
		{
			name:   "25%/25% of 10: new up first, old keeps a pod until new is at replicas",
			bounds: Bounds{10, 3, 2},
			start:  fresh(10),
			want: []row{
				{New: "create 0->3", Old: "old:10->5", Pods: 13, Avail: 8},
				{New: "3->8", Old: "old:5->1", Pods: 13, Avail: 9},
				{New: "8->10", Old: "old:1->0", Pods: 11, Avail: 10},
			},
		},
		{
			name:   "maxSurge 0: the one extra pod, first and last",
			bounds: Bounds{10, 0, 2},
			start:  fresh(10),
			want: []row{
				{New: "create 0->1", Old: "old:10->7", Pods: 11, Extra: true, Avail: 8},
				{New: "1->3", Old: "old:7->5", Pods: 10, Avail: 8},
				{New: "3->5", Old: "old:5->3", Pods: 10, Avail: 8},
				{New: "5->7", Old: "old:3->1", Pods: 10, Avail: 8},
				{New: "7->9", Pods: 10, Avail: 10},
				{New: "9->10", Old: "old:1->0", Pods: 11, Extra: true, Avail: 10},
			},
		},
		{
			name:   "maxUnavailable 0: availability never below replicas",
			bounds: Bounds{10, 3, 0},
			start:  fresh(10),
			want: []row{
				{New: "create 0->3", Old: "old:10->7", Pods: 13, Avail: 10},
				{New: "3->6", Old: "old:7->4", Pods: 13, Avail: 10},
				{New: "6->9", Old: "old:4->1", Pods: 13, Avail: 10},
				{New: "9->10", Old: "old:1->0", Pods: 11, Avail: 10},
			},
		},
		{
			name:   "unavailable old pods go first and cost no availability",
			bounds: Bounds{10, 3, 2},
			start:  Start{New: Counts{Name: "new"}, Old: []Counts{{Name: "old", Replicas: 10, Available: 6}}},
			want: []row{
				// 4 unavailable pods go, then 1 available one: 3 new + 5 old = 8 available.
				{New: "create 0->3", Old: "old:10->5", Pods: 13, Avail: 8},
				{New: "3->8", Old: "old:5->1", Pods: 13, Avail: 9},
				{New: "8->10", Old: "old:1->0", Pods: 11, Avail: 10},
			},
		},
		{
			name:   "resume between scale-up and scale-down: no write before the wait",
			bounds: Bounds{10, 3, 2},
			start:  Start{New: Counts{Name: "new", Replicas: 3, Available: 1}, NewExists: true, Old: []Counts{{Name: "old", Replicas: 10, Available: 10}}},
			want: []row{
				{New: "3->3", Old: "old:10->5", Pods: 13, Avail: 8},
				{New: "3->8", Old: "old:5->1", Pods: 13, Avail: 9},
				{New: "8->10", Old: "old:1->0", Pods: 11, Avail: 10},
			},
		},
		{
			name:   "two old ReplicaSets: oldest first",
			bounds: Bounds{10, 3, 2},
			start: Start{New: Counts{Name: "new"}, Old: []Counts{
				{Name: "a", Replicas: 4, Available: 4}, {Name: "b", Replicas: 6, Available: 6}}},
			want: []row{
				{New: "create 0->3", Old: "a:4->0 b:6->5", Pods: 13, Avail: 8},
				{New: "3->8", Old: "b:5->1", Pods: 13, Avail: 9},
				{New: "8->10", Old: "b:1->0", Pods: 11, Avail: 10},
			},
		},
		{
			name:   "replicas lowered while held: new above replicas comes down",
			bounds: Bounds{4, 1, 1},
			start:  Start{New: Counts{Name: "new", Replicas: 6, Available: 6}, NewExists: true, Old: []Counts{{Name: "old", Replicas: 2, Available: 2}}},
			want: []row{
				{New: "6->4", Old: "old:2->0", Pods: 8, Avail: 4},
			},
		},
		{
			name:   "complete: no step",
			bounds: Bounds{3, 1, 0},
			start:  Start{New: Counts{Name: "new", Replicas: 3, Available: 3}, NewExists: true, Old: []Counts{{Name: "old"}}},
			want:   nil,
		},
		{
			name:   "at replicas but not yet available: a wait-only step",
			bounds: Bounds{3, 1, 0},
			start:  Start{New: Counts{Name: "new", Replicas: 3, Available: 1}, NewExists: true},
			want:   []row{{New: "3->3", Pods: 3, Avail: 3}},
		},
		{
			name:   "one replica, maxSurge 0: the extra pod is the whole rollout",
			bounds: Bounds{1, 0, 1},
			start:  fresh(1),
			want:   []row{{New: "create 0->1", Old: "old:1->0", Pods: 2, Extra: true, Avail: 1}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			steps, err := PlanSteps(tc.bounds, tc.start)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, rows(steps)); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
			checkPlan(t, tc.bounds, tc.start, steps)
		})
	}
}

func TestPlanStepsErrors(t *testing.T) {
	if _, err := PlanSteps(Bounds{Replicas: 0}, Start{}); err == nil {
		t.Error("replicas 0: want an error")
	}
}

// checkPlan asserts the invariants every plan keeps; see NextStep.
func checkPlan(t testing.TB, b Bounds, s Start, steps []Step) {
	t.Helper()
	cur := s.clone()
	startedLone := lone(b, s.New.Replicas, s.Old)
	for i, st := range steps {
		where := fmt.Sprintf("step %d (%+v)", i+1, st)
		before := cur.pods()
		if st.Number != i+1 {
			t.Fatalf("%s: Number %d", where, st.Number)
		}
		// Pods: never above replicas+maxSurge (or what was there), except the extra pod.
		limit := max(before, b.MaxPods())
		if st.ExtraPod {
			limit++
			if b.MaxSurge != 0 && before < b.MaxPods() {
				t.Fatalf("%s: extra pod with maxSurge %d", where, b.MaxSurge)
			}
		}
		if st.Pods > limit {
			t.Fatalf("%s: %d pods, limit %d", where, st.Pods, limit)
		}
		if st.Pods != before-st.New.From+st.New.To && st.Pods != before {
			t.Fatalf("%s: Pods %d does not follow from %d", where, st.Pods, before)
		}
		// The new ReplicaSet is created once, and never left at 0 once created.
		if st.Create == cur.NewExists {
			t.Fatalf("%s: Create %v with NewExists %v", where, st.Create, cur.NewExists)
		}
		if (cur.NewExists || st.Create) && st.New.To == 0 {
			t.Fatalf("%s: new ReplicaSet at 0", where)
		}
		if st.New.From != cur.New.Replicas || st.WaitAvailable != st.New.To {
			t.Fatalf("%s: new scale does not start from %d", where, cur.New.Replicas)
		}
		// Availability: the scale-down never takes it below the bound, or below what there was.
		if st.AvailableAfter < min(b.MinAvailable(), st.AvailableBefore) {
			t.Fatalf("%s: available %d after scale-down, bound %d, before %d", where, st.AvailableAfter, b.MinAvailable(), st.AvailableBefore)
		}
		// Apply the writes one by one and check no lone active ReplicaSet below replicas.
		state := cur.clone()
		state.New.Replicas = st.New.To
		check := func(what string) {
			if !startedLone && lone(b, state.New.Replicas, state.Old) {
				t.Fatalf("%s: after %s a lone active ReplicaSet is below replicas: new %d, old %+v", where, what, state.New.Replicas, state.Old)
			}
		}
		check("the scale-up")
		for _, o := range st.Old {
			if state.Old[o.Old].Replicas != o.From || o.To >= o.From {
				t.Fatalf("%s: old scale %+v from state %+v", where, o, state.Old[o.Old])
			}
			state.Old[o.Old].Replicas = o.To
			check("scaling " + o.Name)
		}
		if st.New.To == 0 && len(st.Old) > 0 {
			t.Fatalf("%s: old scaled down while new is at 0", where)
		}
		// Memoryless: planning from the step's end gives the rest of the plan.
		rest, err := PlanSteps(b, st.After)
		if err != nil {
			t.Fatalf("%s: replan: %v", where, err)
		}
		want := steps[i+1:]
		if diff := cmp.Diff(renumber(want), renumber(rest)); diff != "" {
			t.Fatalf("%s: replan from its end differs (-want +got):\n%s", where, diff)
		}
		cur = st.After.clone()
		startedLone = false
	}
	if !cur.Complete(b) {
		t.Fatalf("plan ends incomplete: %+v", cur)
	}
}

// lone is the state the paused controller corrects, written independently of the planner:
// exactly one ReplicaSet with replicas, and not at spec.replicas.
func lone(b Bounds, newReplicas int32, olds []Counts) bool {
	sizes := []int32{newReplicas}
	for _, o := range olds {
		sizes = append(sizes, o.Replicas)
	}
	var active []int32
	for _, n := range sizes {
		if n > 0 {
			active = append(active, n)
		}
	}
	return len(active) == 1 && active[0] != b.Replicas
}

func renumber(steps []Step) []Step {
	out := make([]Step, len(steps))
	for i, st := range steps {
		st.Number = i + 1
		out[i] = st
	}
	return out
}

// randomCase draws bounds and a start state, including in-flight and odd ones.
func randomCase(r *rand.Rand) (Bounds, Start) {
	replicas := int32(1 + r.IntN(30))
	specs := []string{"0", "1", "2", "25%", "50%", "100%", "10%", "3"}
	surge, unavailable := specs[r.IntN(len(specs))], specs[r.IntN(len(specs))]
	if surge == "0" && unavailable == "0" {
		unavailable = "1"
	}
	s, u := intstr.Parse(surge), intstr.Parse(unavailable)
	b, err := ResolveBounds(replicas, appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
		RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &s, MaxUnavailable: &u}})
	if err != nil {
		panic(err)
	}
	st := Start{New: Counts{Name: "new"}}
	if r.IntN(3) == 0 {
		st.NewExists = true
		st.New.Replicas = int32(1 + r.IntN(int(replicas)+3))
		st.New.Available = int32(r.IntN(int(st.New.Replicas) + 1))
	}
	for i := range 1 + r.IntN(3) {
		n := int32(r.IntN(int(replicas) + 2))
		st.Old = append(st.Old, Counts{Name: fmt.Sprintf("old%d", i), Replicas: n, Available: int32(r.IntN(int(n) + 1))})
	}
	return b, st
}

func TestPlanStepsInvariants(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 3000 {
		b, s := randomCase(r)
		steps, err := PlanSteps(b, s)
		if err != nil {
			t.Fatalf("case %d: bounds %+v start %+v: %v", i, b, s, err)
		}
		checkPlan(t, b, s, steps)
	}
}

func FuzzPlanSteps(f *testing.F) {
	f.Add(uint64(1), uint64(2))
	f.Add(uint64(7), uint64(99))
	f.Fuzz(func(t *testing.T, a, b uint64) {
		bounds, s := randomCase(rand.New(rand.NewPCG(a, b)))
		steps, err := PlanSteps(bounds, s)
		if err != nil {
			t.Fatalf("bounds %+v start %+v: %v", bounds, s, err)
		}
		checkPlan(t, bounds, s, steps)
	})
}
