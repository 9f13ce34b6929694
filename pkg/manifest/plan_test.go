package manifest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/change"
	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

func TestClassify(t *testing.T) {
	live := testutil.Deployment("web").Replicas(3).Build()
	withImage := live.DeepCopy()
	withImage.Spec.Template.Spec.Containers[0].Image = "nginx:1.27"
	applied := live.DeepCopy()
	applied.Annotations = map[string]string{corev1.LastAppliedConfigAnnotation: "{}"}
	labelled := live.DeepCopy()
	labelled.Labels["team"] = "a"
	for _, tc := range []struct {
		name          string
		live, desired *appsv1.Deployment
		want          Change
	}{
		{"not live: a create", nil, live, ChangeCreate},
		{"the same", live, live.DeepCopy(), ChangeNone},
		{"only kubectl's last-applied annotation differs", live, applied, ChangeNone},
		{"another image", live, withImage, ChangeUpdate},
		{"a label only", live, labelled, ChangeUpdate},
	} {
		if got := Classify(tc.live, tc.desired); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

// object is d as a manifest set holds it (unstructured, without status and server fields).
func object(t *testing.T, d *appsv1.Deployment, source string) Object {
	t.Helper()
	d = d.DeepCopy()
	d.Status, d.UID, d.ResourceVersion, d.Generation = appsv1.DeploymentStatus{}, "", "", 0
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(d)
	if err != nil {
		t.Fatal(err)
	}
	return Object{Source: source, Object: &unstructured.Unstructured{Object: m}}
}

// liveState is d rolled out: one ReplicaSet with every pod available.
func liveState(d *appsv1.Deployment) *cluster.State {
	d = d.DeepCopy()
	d.Status = appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: *d.Spec.Replicas, UpdatedReplicas: *d.Spec.Replicas, ReadyReplicas: *d.Spec.Replicas, AvailableReplicas: *d.Spec.Replicas}
	return &cluster.State{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{testutil.ReplicaSetFor(d).Build()}, Source: "cluster"}
}

// fakeServer plays the I/O of PlanSet: live states per namespace, and dry runs that return
// desired (with a resourceVersion: an update) or count the in-flight calls.
type fakeServer struct {
	states              map[string][]*cluster.State
	readErr             map[string]error
	dryRunErr           map[string]error
	mu                  sync.Mutex
	reads, creates, upd []string
	inFlight, maxFlight atomic.Int32
}

func (f *fakeServer) config(parallel int) Config {
	return Config{
		Readiness: planner.ReadinessBatched,
		Parallel:  parallel,
		Read: func(_ context.Context, ns string) ([]cluster.Member, error) {
			f.mu.Lock()
			f.reads = append(f.reads, ns)
			f.mu.Unlock()
			var out []cluster.Member
			for _, s := range f.states[ns] {
				out = append(out, cluster.Member{Deployment: s.Deployment, State: s})
			}
			return out, f.readErr[ns]
		},
		Desired: func(live *cluster.State, obj Object) (*appsv1.Deployment, []string, error) {
			var d *appsv1.Deployment
			if live != nil {
				d = live.Deployment
			}
			got, err := change.FromObject(d, obj.Object)
			return got, nil, err
		},
		DryRun: func(_ context.Context, _ *cluster.State, d *appsv1.Deployment) (*appsv1.Deployment, []string, error) {
			n := f.inFlight.Add(1)
			defer f.inFlight.Add(-1)
			for {
				m := f.maxFlight.Load()
				if n <= m || f.maxFlight.CompareAndSwap(m, n) {
					break
				}
			}
			time.Sleep(5 * time.Millisecond) // let the others start, if the bound allows
			f.mu.Lock()
			if d.ResourceVersion == "" {
				f.creates = append(f.creates, d.Name)
			} else {
				f.upd = append(f.upd, d.Name)
			}
			f.mu.Unlock()
			if err := f.dryRunErr[d.Name]; err != nil {
				return nil, nil, err
			}
			return d.DeepCopy(), []string{"dry run of " + d.Name}, nil
		},
	}
}

func TestPlanSetCreateUpdateNoChange(t *testing.T) {
	changed := testutil.Deployment("changed").Replicas(4).Build()
	same := testutil.Deployment("same").Replicas(2).Build()
	fresh := testutil.Deployment("fresh").Replicas(3).Build()
	newImage := changed.DeepCopy()
	newImage.Spec.Template.Spec.Containers[0].Image = "nginx:1.27"
	srv := &fakeServer{states: map[string][]*cluster.State{testutil.DefaultNamespace: {liveState(changed), liveState(same)}}}
	set := &Set{Deployments: []Object{object(t, fresh, "a.yaml"), object(t, newImage, "b.yaml"), object(t, same, "c.yaml")}}

	results, err := PlanSet(t.Context(), set, srv.config(2))
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Ref, Source string
		Change      Change
		Outcome     planner.Outcome
		Writes      int
		FirstStep   string
		Warnings    []string
	}
	var got []row
	for _, r := range results {
		if r.Err != nil {
			t.Fatalf("%s: %v", r.Ref, r.Err)
		}
		first := ""
		if len(r.Plan.Steps) > 0 {
			s := r.Plan.Steps[0]
			first = fmt.Sprintf("%s %d -> %d", r.Plan.ReplicaSets[s.ReplicaSet].Name, s.From, s.To)
		}
		got = append(got, row{r.Ref.String(), r.Source, r.Change, r.Plan.Outcome, len(r.Plan.Steps), first, r.Warnings})
	}
	ns := testutil.DefaultNamespace
	newRS := results[0].Plan.NewReplicaSet.Name
	want := []row{
		{ns + "/fresh", "a.yaml", ChangeCreate, planner.OutcomeComplete, 1, newRS + " 0 -> 3", []string{"dry run of fresh"}},
		{ns + "/changed", "b.yaml", ChangeUpdate, planner.OutcomeComplete, len(results[1].Plan.Steps), results[1].Plan.NewReplicaSet.Name + " 0 -> 1", []string{"dry run of changed"}},
		{ns + "/same", "c.yaml", ChangeNone, planner.OutcomeNoChange, 0, "", []string{"dry run of same"}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if results[1].Plan.NewReplicaSet.Exists || len(results[1].Plan.Steps) < 2 {
		t.Errorf("the changed Deployment's plan: %+v", results[1].Plan.NewReplicaSet)
	}
	if d := cmp.Diff([]string{ns}, srv.reads); d != "" {
		t.Errorf("reads, one per namespace (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"fresh"}, srv.creates); d != "" {
		t.Errorf("dry-run creates (-want +got):\n%s", d)
	}
	if len(srv.upd) != 2 {
		t.Errorf("dry-run updates %v, want changed and same", srv.upd)
	}
}

// TestPlanSetBound: dry runs are concurrent, never more than Parallel in flight.
func TestPlanSetBound(t *testing.T) {
	set := &Set{}
	for i := range 12 {
		set.Deployments = append(set.Deployments, object(t, testutil.Deployment(fmt.Sprintf("d%02d", i)).Build(), "set.yaml"))
	}
	srv := &fakeServer{}
	results, err := PlanSet(t.Context(), set, srv.config(3))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if r.Err != nil || r.Change != ChangeCreate {
			t.Errorf("%s: %s, %v", r.Ref, r.Change, r.Err)
		}
	}
	if n := len(srv.creates); n != 12 {
		t.Errorf("%d dry runs, want 12", n)
	}
	if m := srv.maxFlight.Load(); m > 3 || m < 2 {
		t.Errorf("at most %d dry runs in flight, want 2 or 3 (concurrent, bound 3)", m)
	}
}

// TestPlanSetErrors: a failing namespace read, dry run or manifest fails its Deployment
// only (Ref and Source name it and its file); the others are planned.
func TestPlanSetErrors(t *testing.T) {
	ok := testutil.Deployment("ok").Build()
	rejected := testutil.Deployment("rejected").Build()
	elsewhere := testutil.Deployment("elsewhere").Namespace("locked").Build()
	invalid := object(t, testutil.Deployment("invalid").Build(), "bad.yaml")
	_ = unstructured.SetNestedField(invalid.Object.Object, "apps/v1beta1", "apiVersion")
	srv := &fakeServer{
		readErr:   map[string]error{"locked": errors.New(`list deployments.apps in namespace "locked": forbidden`)},
		dryRunErr: map[string]error{"rejected": errors.New("admission webhook denied the request")},
	}
	set := &Set{Deployments: []Object{object(t, ok, "a.yaml"), object(t, rejected, "b.yaml"), object(t, elsewhere, "c.yaml"), invalid}}
	results, err := PlanSet(t.Context(), set, srv.config(2))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range results {
		if r.Err != nil {
			got = append(got, r.Ref.String()+" "+r.Source+": "+r.Err.Error())
		} else {
			got = append(got, r.Ref.String()+" "+string(r.Change))
		}
	}
	ns := testutil.DefaultNamespace
	want := []string{
		ns + "/ok Create",
		ns + "/rejected b.yaml: admission webhook denied the request",
		`locked/elsewhere c.yaml: list deployments.apps in namespace "locked": forbidden`,
		ns + `/invalid bad.yaml: manifest: Deployment "invalid" is not an apps/v1 Deployment`,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if strings.Join(srv.reads, ",") != ns+",locked" {
		t.Errorf("reads %v: want each namespace once, sorted", srv.reads)
	}
}
