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
	"sync/atomic"
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
	flagTimed   = flag.Int("conformance.timed", 10, "run every Nth start state under the timed model too, with generated per-pod ready times (0: none)")
)

// statusDiffers counts the runs whose end state the harness's reading of the ReplicaSets
// (Result.Complete) and the controller's own status (Result.StatusComplete, what the outcome
// is compared on) judge differently: a Deployment at 0 replicas whose new ReplicaSet does not
// exist yet (paused) is complete for the controller and for `kubectl rollout status`.
var statusDiffers atomic.Int64

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
	// Timing is the time model under timed (durations in nanoseconds).
	Timing *planner.Timing `json:"timing,omitempty"`
}

// step is a replica write as both sides report it.
type step struct {
	ReplicaSet string
	From, To   int32
	Create     bool
	// At is the write's time under timed (0 under the other models, on both sides).
	At time.Duration
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
	// Duration and ProgressDeadlineAt under timed (0 and nil otherwise, on both sides).
	Duration           time.Duration
	ProgressDeadlineAt *time.Duration
}

// controllerOutcome reads the outcome from the controller's run. Complete is the
// controller's own verdict, DeploymentComplete on the status it last wrote
// (Result.StatusComplete); the Outcome follows the planner's precedence (finish.go):
// complete with no replica write is NoChange, complete is Complete, else paused is Paused,
// else Stalled.
func controllerOutcome(d *apps.Deployment, r *deployment.Result) outcome {
	o := outcome{
		Cleanup:            r.Deleted,
		Final:              map[string]int32{},
		FinalAvailable:     map[string]int32{},
		NewReplicaSet:      r.NewReplicaSet,
		Duration:           r.Duration,
		ProgressDeadlineAt: r.ProgressDeadlineAt,
	}
	for _, w := range r.Writes {
		o.Steps = append(o.Steps, step{ReplicaSet: w.ReplicaSet, From: w.From, To: w.To, Create: w.Create, At: w.At})
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
	case r.StatusComplete && len(r.Writes) == 0:
		o.Outcome = planner.OutcomeNoChange
	case r.StatusComplete:
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
		Final:              map[string]int32{},
		FinalAvailable:     map[string]int32{},
		NewReplicaSet:      p.NewReplicaSet.Name,
		Outcome:            p.Outcome,
		Duration:           p.Duration,
		ProgressDeadlineAt: p.ProgressDeadlineAt,
	}
	for _, s := range p.Steps {
		o.Steps = append(o.Steps, step{ReplicaSet: p.ReplicaSets[s.ReplicaSet].Name, From: s.From, To: s.To, Create: s.Create, At: s.At})
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
	in := planner.Input{Deployment: sc.Deployment, ReplicaSets: sc.ReplicaSets, Readiness: sc.Readiness, Timing: sc.Timing}
	if sc.Timing != nil {
		run.Timing = &deployment.Timing{ReadyAfter: sc.Timing.ReadyAfter, Pending: sc.Timing.Pending}
	}
	if sc.Now != nil {
		run.Now, in.Now = sc.Now.Time, *sc.Now
	}
	res, err := deployment.Run(context.Background(), run)
	if err != nil {
		return outcome{}, "", fmt.Errorf("controller: %w", err)
	}
	if res.Complete != res.StatusComplete {
		statusDiffers.Add(1)
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
	// The time model draws from a source of its own, so the start states are the same with
	// and without it.
	tr := rand.New(rand.NewSource(*flagSeed ^ 0x7173d))
	runs, failed := 0, 0
	timedRuns, deadlines := 0, 0
	// Coverage of the runs: outcomes, and runs with a create, a delete, steps in all.
	outcomes := map[planner.Outcome]int{}
	creates, deletes, steps := 0, 0, 0
	// runState checks one start state under the three models and, with a timing, timed.
	runState := func(name string, f *fixture, now *metav1.Time, timing *planner.Timing) {
		models := readinesses
		if timing != nil {
			models = append(slices.Clip(models), planner.ReadinessTimed)
		}
		for _, readiness := range models {
			sc := &scenario{
				Name:        fmt.Sprintf("%s %s", name, readiness),
				Readiness:   readiness,
				Now:         now,
				Deployment:  f.d,
				ReplicaSets: f.rss,
			}
			if readiness == planner.ReadinessTimed {
				sc.Timing = timing
				timedRuns++
			}
			runs++
			want, diff, err := checkOutcome(sc)
			if diff != "" || err != nil {
				failed++
				report(t, sc, diff, err)
				return
			}
			outcomes[want.Outcome]++
			if want.ProgressDeadlineAt != nil {
				deadlines++
			}
			steps += len(want.Steps)
			if slices.ContainsFunc(want.Steps, func(s step) bool { return s.Create }) {
				creates++
			}
			if len(want.Cleanup) > 0 {
				deletes++
			}
		}
	}
	for i := 0; i < *flagN && failed < *flagMaxFail; i++ {
		f := generate(r)
		var now *metav1.Time
		if i%2 == 1 {
			now = &metav1.Time{Time: epoch.Add(24 * time.Hour)}
		}
		var timing *planner.Timing
		if *flagTimed > 0 && i%*flagTimed == 0 {
			timing = generateTiming(tr, f)
		}
		runState(fmt.Sprintf("seed=%d #%d", *flagSeed, i), f, now, timing)
	}
	// The edge states of issue 10 (a stale desired-replicas annotation on the lone new
	// ReplicaSet), from a source of their own: one for every twenty generated states.
	er := rand.New(rand.NewSource(*flagSeed ^ 0x57a1e))
	for i := 0; i < *flagN/20 && failed < *flagMaxFail; i++ {
		f := generateStaleLone(er)
		runState(fmt.Sprintf("seed=%d stale-lone #%d", *flagSeed, i), f, nil, generateTiming(er, f))
	}
	t.Logf("seed %d: %d start states, %d runs (controller and planner; %d of them timed, %d passing the progress deadline), %d failed, in %s",
		*flagSeed, *flagN, runs, timedRuns, deadlines, failed, time.Since(start).Round(time.Millisecond))
	t.Logf("coverage: outcomes %v; %d runs create the new ReplicaSet, %d delete old ones, %d replica writes in all; %d runs complete by the controller's status but not by the ReplicaSets alone",
		outcomes, creates, deletes, steps, statusDiffers.Load())
	if *flagN < 2000 && !testing.Short() {
		t.Logf("note: -conformance.n=%d is below the 2000 the default run covers", *flagN)
	}
}
