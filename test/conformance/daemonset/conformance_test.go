package daemonset

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apps "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"sigs.k8s.io/yaml"

	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	dsplanner "github.com/rollplan/kubectl-rollplan/pkg/planner/daemonset"
	"github.com/rollplan/kubectl-rollplan/test/conformance/upstream/daemon"
)

var (
	flagSeed    = flag.Int64("ds.seed", 20260301, "seed of the DaemonSet scenario generator")
	flagN       = flag.Int("ds.n", 1000, "number of generated DaemonSet start states; each runs under all four readiness models")
	flagMaxFail = flag.Int("ds.maxfail", 5, "stop after this many failing scenarios")
	flagTimed   = flag.Int("ds.timed", 1, "every Nth start state runs under the timed model too (1: every one; 0: none)")
)

var readinesses = []planner.Readiness{planner.ReadinessBatched, planner.ReadinessInstant, planner.ReadinessNever, planner.ReadinessTimed}

// The timed model's durations in the runs under ReadinessTimed: against minReadySeconds 0 or
// 30 and the fixture's pods Ready 10 s before the start, so that pods become Ready, then
// available, at moments apart.
const (
	timedReadyAfter  = 7 * time.Second
	timedSyncLatency = 1500 * time.Millisecond
)

// TestMain silences the controller's klog lines (one per sync under maxSurge and
// maxUnavailable both 0).
func TestMain(m *testing.M) {
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
	os.Exit(m.Run())
}

// op is a pod operation as both sides report it.
type op struct {
	Sync     int
	Action   string
	Pod      string
	Node     string
	Revision string
}

// outcome is what both sides are compared on besides the operations.
type outcome struct {
	Ops              []op
	UpdateRevision   string
	UpdateNumber     int64
	Complete         bool
	Desired          int
	RevisionsDeleted []string
	// Bounds: per sync that created or deleted pods, "sync: Ccreates Ddeletes uUnavailable
	// sSurging" right after it.
	Bounds []string
	// SyncAt: under the timed model, every sync's time from the start.
	SyncAt []time.Duration
}

// counts are the figures the test reports.
type counts struct {
	states, runs, timed, ops, mismatches, orderDependent, complete, stalled, waiting, noChange, collisions, reused, renumbered int
}

func TestConformance(t *testing.T) {
	start := time.Now()
	r := rand.New(rand.NewSource(*flagSeed))
	var c counts
	for i := range *flagN {
		f := generate(r)
		c.states++
		for _, rd := range readinesses {
			if rd == planner.ReadinessTimed && (*flagTimed <= 0 || i%*flagTimed != 0) {
				continue
			}
			name := fmt.Sprintf("state %d (seed %d) readiness %s", i, *flagSeed, rd)
			c.runs++
			if rd == planner.ReadinessTimed {
				c.timed++
			}
			if err := check(t, &c, f, rd); err != nil {
				c.mismatches++
				dump, _ := yaml.Marshal(map[string]any{"daemonSet": f.ds, "revisions": f.revs, "nodes": f.nodes, "pods": f.pods})
				t.Errorf("%s: %v\nscenario:\n%s", name, err, dump)
				if c.mismatches >= *flagMaxFail {
					t.Fatalf("stopping after %d failing runs", c.mismatches)
				}
			}
		}
	}
	t.Logf("DaemonSet conformance: %d start states, %d runs (%d of them timed), %d pod operations, %d mismatches; outcomes: %d complete, %d no change, %d stalled, %d waiting for deletes; %d runs with a hash collision, %d reusing a revision (%d renumbered: rollbacks); %d runs where the random node order picks the nodes (replayed); %s",
		c.states, c.runs, c.timed, c.ops, c.mismatches, c.complete, c.noChange, c.stalled, c.waiting, c.collisions, c.reused, c.renumbered, c.orderDependent, time.Since(start).Round(time.Millisecond))
}

// check runs the controller and the planner on f under rd and compares them. The planner
// replays the controller's node choices (Input.NodeOrder: the nodes the controller touched
// in each sync first). A plan that says the order never mattered must also be what the
// planner gives without the replay.
func check(t *testing.T, c *counts, f *fixture, rd planner.Readiness) error {
	sc := daemon.Scenario{DaemonSet: f.ds, Revisions: f.revs, Nodes: f.nodes, Pods: f.pods, Readiness: string(rd)}
	if rd == planner.ReadinessTimed {
		sc.ReadyAfter, sc.SyncLatency = timedReadyAfter, timedSyncLatency
	}
	res, err := daemon.Run(context.Background(), sc)
	if err != nil {
		return fmt.Errorf("controller: %w", err)
	}
	touched := map[int][]string{}
	for _, o := range res.Ops {
		touched[o.Sync] = append(touched[o.Sync], o.Node)
	}
	in := dsplanner.Input{Now: metav1.NewTime(daemon.Start), DaemonSet: f.ds, Revisions: f.revs, Nodes: f.nodes, Pods: f.pods, Readiness: rd,
		NodeOrder: func(step int) []string { return touched[step] }, ReadyAfter: sc.ReadyAfter, SyncLatency: sc.SyncLatency}
	plan, err := dsplanner.Simulate(in)
	if err != nil {
		return fmt.Errorf("planner: %w", err)
	}
	want, got := fromController(f, res), fromPlan(plan)
	if d := cmp.Diff(want, got); d != "" {
		return fmt.Errorf("controller and planner differ (-controller +planner):\n%s", d)
	}
	if plan.OrderMattersFrom == 0 {
		in.NodeOrder = nil
		byName, err := dsplanner.Simulate(in)
		if err != nil {
			return fmt.Errorf("planner without replay: %w", err)
		}
		if d := cmp.Diff(got, fromPlan(byName)); d != "" {
			return fmt.Errorf("the plan says the node order never matters, yet it changes the plan (-replayed +by name):\n%s", d)
		}
	} else {
		c.orderDependent++
	}
	c.ops += len(got.Ops)
	switch plan.Outcome {
	case dsplanner.OutcomeComplete:
		c.complete++
	case dsplanner.OutcomeNoChange:
		c.noChange++
	case dsplanner.OutcomeStalled:
		c.stalled++
	case dsplanner.OutcomeWaitingForDelete:
		c.waiting++
	}
	if plan.UpdateRevision.Collisions > 0 {
		c.collisions++
	}
	if plan.UpdateRevision.Reused {
		c.reused++
	}
	if plan.UpdateRevision.RenumberedFrom > 0 {
		c.renumbered++
	}
	return nil
}

// fromController reads the controller's run: operations per sync by node, the revision of
// each pod by its hash, the update revision, the controller's own status verdict.
func fromController(f *fixture, res *daemon.Result) outcome {
	names := map[string]string{res.UpdateHash: res.UpdateRevision}
	for _, cr := range f.revs {
		if h := cr.Labels[apps.DefaultDaemonSetUniqueLabelKey]; names[h] == "" {
			names[h] = cr.Name
		}
	}
	o := outcome{UpdateRevision: res.UpdateRevision, UpdateNumber: res.UpdateRevisionNumber, Desired: int(res.Status.DesiredNumberScheduled),
		Complete: res.Status.UpdatedNumberScheduled == res.Status.DesiredNumberScheduled && res.Status.NumberAvailable == res.Status.DesiredNumberScheduled,
		SyncAt:   res.SyncAt}
	for _, x := range res.Ops {
		o.Ops = append(o.Ops, op{Sync: x.Sync, Action: x.Action, Pod: x.Pod, Node: x.Node, Revision: names[x.Hash]})
	}
	o.RevisionsDeleted = append(o.RevisionsDeleted, res.RevisionsDeleted...)
	for _, b := range res.Bounds {
		o.Bounds = append(o.Bounds, fmt.Sprintf("%d: C%d D%d u%d s%d", b.Sync, b.Creates, b.Deletes, b.Unavailable, b.Surging))
	}
	sortOps(o.Ops)
	return o
}

func fromPlan(p *dsplanner.Plan) outcome {
	o := outcome{UpdateRevision: p.UpdateRevision.Name, UpdateNumber: p.UpdateRevision.Number, Desired: p.DesiredNumberScheduled,
		Complete: p.Outcome == dsplanner.OutcomeComplete || p.Outcome == dsplanner.OutcomeNoChange, SyncAt: p.SyncAt}
	for _, x := range p.PodOperations {
		o.Ops = append(o.Ops, op{Sync: x.Step, Action: string(x.Action), Pod: x.Pod, Node: x.Node, Revision: x.Revision})
	}
	for _, d := range p.RevisionsDeleted {
		o.RevisionsDeleted = append(o.RevisionsDeleted, fmt.Sprintf("sync %d: %s", d.Step, d.Revision))
	}
	for _, s := range p.Steps {
		o.Bounds = append(o.Bounds, fmt.Sprintf("%d: C%d D%d u%d s%d", s.Step, s.Creates, s.Deletes, s.Unavailable, s.Surging))
	}
	sortOps(o.Ops)
	return o
}

func sortOps(ops []op) {
	slices.SortStableFunc(ops, func(a, b op) int {
		if a.Sync != b.Sync {
			return a.Sync - b.Sync
		}
		if a.Node != b.Node {
			if a.Node < b.Node {
				return -1
			}
			return 1
		}
		if a.Action != b.Action {
			if a.Action > b.Action {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Pod, b.Pod)
	})
}
