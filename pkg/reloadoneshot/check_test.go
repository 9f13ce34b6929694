package reloadoneshot

import (
	"context"
	"errors"
	"testing"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/reload"
)

// Check runs on restarts only, gives the check the restart's Desired Deployment over the
// ReplicaSets read, keeps its result and takes its replayed plan; a check's error stops it.
func TestCheck(t *testing.T) {
	d := testutil.Deployment("web").Replicas(3).Build()
	st := &cluster.State{Deployment: d, ReplicaSets: nil}
	desired := d.DeepCopy()
	desired.Spec.Template.Annotations = map[string]string{"restarted": "1"}
	replayed := &planner.Plan{Name: "replayed"}
	restart := &Target{State: st, Action: reload.ActionRestart, Desired: desired, Plan: &planner.Plan{Name: "first"}}
	none := &Target{State: st, Action: reload.ActionNone}
	var seen []*planner.Input
	check := func(_ context.Context, got *cluster.State, in planner.Input) (*feasibility.Result, error) {
		if got != st {
			t.Errorf("check given state %p, want the target's", got)
		}
		seen = append(seen, &in)
		return &feasibility.Result{Stall: &feasibility.Stall{Step: 1}, Plan: replayed}, nil
	}
	if err := Check(t.Context(), []*Target{none, restart}, planner.ReadinessBatched, check); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 || seen[0].Deployment != desired || seen[0].Readiness != planner.ReadinessBatched {
		t.Fatalf("check calls %+v, want one, of the restart's desired Deployment", seen)
	}
	if restart.Plan != replayed || restart.Feasibility == nil || restart.Feasibility.Stall.Step != 1 || none.Feasibility != nil {
		t.Errorf("restart: plan %q, feasibility %+v; none: %+v", restart.Plan.Name, restart.Feasibility, none.Feasibility)
	}
	boom := errors.New("boom")
	if err := Check(t.Context(), []*Target{restart}, planner.ReadinessBatched, func(context.Context, *cluster.State, planner.Input) (*feasibility.Result, error) {
		return nil, boom
	}); !errors.Is(err, boom) {
		t.Errorf("err %v, want the check's", err)
	}
}
