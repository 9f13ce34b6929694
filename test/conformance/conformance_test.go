package conformance

import (
	"context"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apps "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/test/conformance/upstream/deployment"
)

var (
	flagSeed    = flag.Int64("conformance.seed", 20260101, "seed of the scenario generator")
	flagN       = flag.Int("conformance.n", 2000, "number of generated start states; each runs under all three readiness models")
	flagReplay  = flag.String("conformance.replay", "", "YAML file holding one scenario as a failure prints it; run it instead of generated ones")
	flagMaxFail = flag.Int("conformance.maxfail", 5, "stop after this many failing scenarios")
	flagDump    = flag.String("conformance.dump", "", "directory to write each failing scenario to, as a YAML file for -conformance.replay")
)

var readinesses = []planner.Readiness{planner.ReadinessBatched, planner.ReadinessInstant, planner.ReadinessNever}

// scenario is one conformance case: the planner's input, printable as YAML for a replay
// (go test -run TestConformance -conformance.replay=FILE).
type scenario struct {
	Name      string            `json:"name"`
	Readiness planner.Readiness `json:"readiness"`
	// Now is Input.Now (null: later than every existing ReplicaSet).
	Now         *metav1.Time       `json:"now,omitempty"`
	Deployment  *apps.Deployment   `json:"deployment"`
	ReplicaSets []*apps.ReplicaSet `json:"replicaSets"`
}

// step is a replica write as both sides report it.
type step struct {
	ReplicaSet string
	From, To   int32
	Create     bool
}

// outcome is what the conformance test compares: every field is derived from the
// controller's run on one side and from the Plan on the other.
type outcome struct {
	Steps []step
	// Cleanup: the ReplicaSets cleanupDeployment deletes, in order.
	Cleanup []string
	// ReplicaSets: every ReplicaSet, oldest first (creation time, then name).
	ReplicaSets []string
	// Final and FinalAvailable: every ReplicaSet's spec.replicas and available pods at the end.
	Final, FinalAvailable map[string]int32
	NewReplicaSet         string
	// NewRevision is the new ReplicaSet's revision when it exists at the end.
	NewRevision int64
	Outcome     planner.Outcome
}

// controllerOutcome reads the outcome from the controller's run. The Outcome follows the
// planner's precedence (finish.go): complete with no replica write is NoChange, complete is
// Complete, else paused is Paused, else Stalled.
func controllerOutcome(d *apps.Deployment, r *deployment.Result) outcome {
	o := outcome{
		Cleanup:        r.Deleted,
		Final:          map[string]int32{},
		FinalAvailable: map[string]int32{},
		NewReplicaSet:  r.NewReplicaSet,
	}
	for _, w := range r.Writes {
		o.Steps = append(o.Steps, step{ReplicaSet: w.ReplicaSet, From: w.From, To: w.To, Create: w.Create})
	}
	for _, rs := range r.ReplicaSets {
		o.ReplicaSets = append(o.ReplicaSets, rs.Name)
		o.Final[rs.Name] = rs.Replicas
		o.FinalAvailable[rs.Name] = rs.Available
	}
	if r.NewReplicaSetExists {
		o.NewRevision = r.NewRevision
	}
	switch {
	case r.Complete && len(r.Writes) == 0:
		o.Outcome = planner.OutcomeNoChange
	case r.Complete:
		o.Outcome = planner.OutcomeComplete
	case d.Spec.Paused:
		o.Outcome = planner.OutcomePaused
	default:
		o.Outcome = planner.OutcomeStalled
	}
	return o
}

// plannerOutcome reads the outcome from a Plan.
func plannerOutcome(p *planner.Plan) outcome {
	o := outcome{
		Final:          map[string]int32{},
		FinalAvailable: map[string]int32{},
		NewReplicaSet:  p.NewReplicaSet.Name,
		Outcome:        p.Outcome,
	}
	for _, s := range p.Steps {
		o.Steps = append(o.Steps, step{ReplicaSet: p.ReplicaSets[s.ReplicaSet].Name, From: s.From, To: s.To, Create: s.Create})
	}
	for _, c := range p.Cleanup {
		o.Cleanup = append(o.Cleanup, c.Name)
	}
	for i, rs := range p.ReplicaSets {
		o.ReplicaSets = append(o.ReplicaSets, rs.Name)
		if i < len(p.Final) {
			o.Final[rs.Name] = p.Final[i]
		}
		if i < len(p.FinalAvailable) {
			o.FinalAvailable[rs.Name] = p.FinalAvailable[i]
		}
	}
	if p.NewReplicaSet.Exists || p.NewReplicaSet.Created {
		o.NewRevision = p.NewReplicaSet.Revision
	}
	return o
}

// check runs sc through the controller and the planner and returns their differences
// (-controller +planner), or "" when they agree.
func check(sc *scenario) (string, error) {
	_, diff, err := checkOutcome(sc)
	return diff, err
}

// checkOutcome is check that also returns the controller's outcome.
func checkOutcome(sc *scenario) (outcome, string, error) {
	run := deployment.Scenario{Deployment: sc.Deployment, ReplicaSets: sc.ReplicaSets, Readiness: string(sc.Readiness)}
	in := planner.Input{Deployment: sc.Deployment, ReplicaSets: sc.ReplicaSets, Readiness: sc.Readiness}
	if sc.Now != nil {
		run.Now, in.Now = sc.Now.Time, *sc.Now
	}
	res, err := deployment.Run(context.Background(), run)
	if err != nil {
		return outcome{}, "", fmt.Errorf("controller: %w", err)
	}
	want := controllerOutcome(sc.Deployment, res)
	plan, err := planner.Simulate(in)
	if err != nil {
		return want, "", fmt.Errorf("planner: %w", err)
	}
	return want, cmp.Diff(want, plannerOutcome(plan)), nil
}

// report fails t with the differences and the scenario as replayable YAML.
func report(t *testing.T, sc *scenario, diff string, err error) {
	t.Helper()
	y, yerr := yaml.Marshal(sc)
	if yerr != nil {
		t.Fatalf("marshal scenario %s: %v", sc.Name, yerr)
	}
	if *flagDump != "" {
		file := filepath.Join(*flagDump, strings.NewReplacer("=", "-", " #", "-", " ", "-").Replace(sc.Name)+".yaml")
		if werr := os.WriteFile(file, y, 0o644); werr != nil {
			t.Errorf("write scenario %s: %v", sc.Name, werr)
		}
	}
	if err != nil {
		t.Errorf("scenario %s: %v\n--- scenario (save as FILE; go test -run TestConformance -conformance.replay=FILE):\n%s", sc.Name, err, y)
		return
	}
	t.Errorf("scenario %s: controller and planner differ (-controller +planner):\n%s\n--- scenario (save as FILE; go test -run TestConformance -conformance.replay=FILE):\n%s", sc.Name, diff, y)
}

// TestConformance generates -conformance.n start states from -conformance.seed and requires
// the planner to make exactly the controller's replica writes under each readiness model.
func TestConformance(t *testing.T) {
	if *flagReplay != "" {
		data, err := os.ReadFile(*flagReplay)
		if err != nil {
			t.Fatalf("read -conformance.replay file: %v", err)
		}
		var sc scenario
		if err := yaml.UnmarshalStrict(data, &sc); err != nil {
			t.Fatalf("parse -conformance.replay file %s: %v", *flagReplay, err)
		}
		if diff, err := check(&sc); diff != "" || err != nil {
			report(t, &sc, diff, err)
		}
		return
	}
	start := time.Now()
	r := rand.New(rand.NewSource(*flagSeed))
	runs, failed := 0, 0
	// Coverage of the runs: outcomes, and runs with a create, a delete, steps in all.
	outcomes := map[planner.Outcome]int{}
	creates, deletes, steps := 0, 0, 0
	for i := 0; i < *flagN && failed < *flagMaxFail; i++ {
		f := generate(r)
		var now *metav1.Time
		if i%2 == 1 {
			now = &metav1.Time{Time: epoch.Add(24 * time.Hour)}
		}
		for _, readiness := range readinesses {
			sc := &scenario{
				Name:        fmt.Sprintf("seed=%d #%d %s", *flagSeed, i, readiness),
				Readiness:   readiness,
				Now:         now,
				Deployment:  f.d,
				ReplicaSets: f.rss,
			}
			runs++
			want, diff, err := checkOutcome(sc)
			if diff != "" || err != nil {
				failed++
				report(t, sc, diff, err)
				break
			}
			outcomes[want.Outcome]++
			steps += len(want.Steps)
			if slices.ContainsFunc(want.Steps, func(s step) bool { return s.Create }) {
				creates++
			}
			if len(want.Cleanup) > 0 {
				deletes++
			}
		}
	}
	t.Logf("seed %d: %d start states, %d runs (controller and planner), %d failed, in %s", *flagSeed, *flagN, runs, failed, time.Since(start).Round(time.Millisecond))
	t.Logf("coverage: outcomes %v; %d runs create the new ReplicaSet, %d delete old ones, %d replica writes in all", outcomes, creates, deletes, steps)
	if *flagN < 2000 && !testing.Short() {
		t.Logf("note: -conformance.n=%d is below the 2000 the default run covers", *flagN)
	}
}
