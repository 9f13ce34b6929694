package drive

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/deployutil"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// rolledOut is a Deployment "web" of 10 replicas on nginx:1.18 with its one ReplicaSet.
func rolledOut() (*appsv1.Deployment, *appsv1.ReplicaSet) {
	d := testutil.Deployment("web").Replicas(10).Revision(1).Build()
	rs := testutil.ReplicaSetFor(d).Created(1).Build()
	return d, rs
}

func withImage(d *appsv1.Deployment, image string) *appsv1.Deployment {
	out := d.DeepCopy()
	out.Spec.Template.Spec.Containers[0].Image = image
	return out
}

func TestPlanTakeover(t *testing.T) {
	d, old := rolledOut()
	desired := withImage(d, "nginx:1.19")
	st := &cluster.State{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{old}}
	tk, err := PlanTakeover(st, desired, false)
	if err != nil {
		t.Fatal(err)
	}
	hash := planner.ComputeHash(&desired.Spec.Template, nil)
	if tk.NewName != "web-"+hash || tk.TargetHash != hash || tk.Reuse != nil {
		t.Errorf("new ReplicaSet %s (hash %s, reuse %v), want web-%s created", tk.NewName, tk.TargetHash, tk.Reuse != nil, hash)
	}
	if tk.Revision != 2 || tk.Previous != old || tk.Adopted {
		t.Errorf("revision %d, previous %v, adopted %v; want 2, %s, false", tk.Revision, tk.Previous, tk.Adopted, old.Name)
	}
	if diff := cmp.Diff(Bounds{10, 3, 2}, tk.Bounds); diff != "" {
		t.Errorf("bounds (-want +got):\n%s", diff)
	}
	if len(tk.Steps) != 3 || !tk.Steps[0].Create || tk.Steps[0].New.To != 3 {
		t.Errorf("steps %+v", rows(tk.Steps))
	}
}

func TestPlanTakeoverReusesRollbackTarget(t *testing.T) {
	d, old := rolledOut()
	// Revision 2 runs nginx:1.19; revision 1 (nginx:1.18, at 0) is the rollback target.
	cur := withImage(d, "nginx:1.19")
	cur.Annotations = map[string]string{deployutil.RevisionAnnotation: "2"}
	curRS := testutil.ReplicaSetFor(cur).Created(2).Build()
	old.Spec.Replicas = new(int32)
	old.Status = appsv1.ReplicaSetStatus{}
	st := &cluster.State{Deployment: cur, ReplicaSets: []*appsv1.ReplicaSet{old, curRS}}
	tk, err := PlanTakeover(st, withImage(cur, "nginx:1.18"), false)
	if err != nil {
		t.Fatal(err)
	}
	if tk.Reuse != old || tk.NewName != old.Name || tk.Revision != 3 || tk.Previous != curRS {
		t.Errorf("reuse %v name %s revision %d previous %v; want the old ReplicaSet reused as revision 3", tk.Reuse != nil, tk.NewName, tk.Revision, tk.Previous)
	}
	if tk.Steps[0].Create {
		t.Error("a reused ReplicaSet is scaled, not created")
	}
}

func TestPlanTakeoverRefusals(t *testing.T) {
	d, old := rolledOut()
	// In flight: the controller's new ReplicaSet has 5, the old one 8.
	inflight := withImage(d, "nginx:1.19")
	inflightNew := testutil.ReplicaSetFor(inflight).Created(2).Replicas(5).Build()
	oldAt8 := old.DeepCopy()
	oldAt8.Spec.Replicas = ptr.To(int32(8))

	cases := []struct {
		name    string
		live    *appsv1.Deployment
		rss     []*appsv1.ReplicaSet
		desired *appsv1.Deployment
		adopt   bool
		want    string // substring of the error; "" for no error
	}{
		{"no change", d, []*appsv1.ReplicaSet{old}, nil, false, "nothing to drive"},
		{"same template: nothing to do", d, []*appsv1.ReplicaSet{old}, d.DeepCopy(), false, "runs this pod template already"},
		{"revisionHistoryLimit 0", d, []*appsv1.ReplicaSet{old}, func() *appsv1.Deployment {
			x := withImage(d, "nginx:1.19")
			x.Spec.RevisionHistoryLimit = ptr.To(int32(0))
			return x
		}(), false, "revisionHistoryLimit 0"},
		{"Recreate", d, []*appsv1.ReplicaSet{old}, func() *appsv1.Deployment {
			x := withImage(d, "nginx:1.19")
			x.Spec.Strategy = testutil.Recreate()
			return x
		}(), false, "strategy Recreate"},
		{"0 replicas", d, []*appsv1.ReplicaSet{old}, func() *appsv1.Deployment {
			x := withImage(d, "nginx:1.19")
			x.Spec.Replicas = ptr.To(int32(0))
			return x
		}(), false, "0 replicas"},
		{"owned by another controller", func() *appsv1.Deployment {
			x := d.DeepCopy()
			x.OwnerReferences = []metav1.OwnerReference{{APIVersion: "argoproj.io/v1alpha1", Kind: "Rollout", Name: "web", UID: "u", Controller: ptr.To(true)}}
			return x
		}(), []*appsv1.ReplicaSet{old}, withImage(d, "nginx:1.19"), false, "controlled by Rollout web"},
		{"Kruise annotations", func() *appsv1.Deployment {
			x := d.DeepCopy()
			x.Annotations = map[string]string{"rollouts.kruise.io/in-progressing": "{}"}
			return x
		}(), []*appsv1.ReplicaSet{old}, withImage(d, "nginx:1.19"), false, "rollouts.kruise.io/in-progressing"},
		{"in flight, no --adopt", inflight, []*appsv1.ReplicaSet{oldAt8, inflightNew}, nil, false, "rollout in flight that drive did not start"},
		{"in flight, --adopt", inflight, []*appsv1.ReplicaSet{oldAt8, inflightNew}, nil, true, ""},
		{"in flight, a change and --adopt", inflight, []*appsv1.ReplicaSet{oldAt8, inflightNew}, withImage(d, "nginx:1.20"), true, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tk, err := PlanTakeover(&cluster.State{Deployment: tc.live, ReplicaSets: tc.rss}, tc.desired, tc.adopt)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.want == "":
				if !tk.Adopted || tk.Previous == nil {
					t.Errorf("adopted %v, previous %v", tk.Adopted, tk.Previous)
				}
			case err == nil:
				t.Fatalf("no error, want one with %q", tc.want)
			case !strings.Contains(err.Error(), tc.want):
				t.Errorf("error %q, want it to contain %q", err, tc.want)
			}
		})
	}
	// Nothing to do is its own error type, so drive can exit 0.
	_, err := PlanTakeover(&cluster.State{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{old}}, d.DeepCopy(), false)
	var nothing *NothingToDoError
	if !errors.As(err, &nothing) {
		t.Errorf("same template: %T, want *NothingToDoError", err)
	}
}

func TestPlanTakeoverAdoptKeepsInflightNewAsTarget(t *testing.T) {
	d, old := rolledOut()
	inflight := withImage(d, "nginx:1.19")
	newRS := testutil.ReplicaSetFor(inflight).Created(2).Replicas(5).Build()
	old.Spec.Replicas = ptr.To(int32(8))
	tk, err := PlanTakeover(&cluster.State{Deployment: inflight, ReplicaSets: []*appsv1.ReplicaSet{old, newRS}}, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	if tk.Reuse != newRS || tk.Previous != old || !tk.Start.NewExists || tk.Start.New.Replicas != 5 {
		t.Errorf("reuse %v previous %v start %+v", tk.Reuse, tk.Previous, tk.Start)
	}
}
