package pipeline

import (
	"errors"
	"testing"

	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// TestPlanKindRefusalIsNotModelled: a readiness the StatefulSet or DaemonSet planner has no
// model for comes back through planKind's wrapping as planner.ErrNotModelled (KindETA's "no
// timed model"); another planning error (timed without the timed inputs) does not.
func TestPlanKindRefusalIsNotModelled(t *testing.T) {
	sts, stsRevs, stsPods := stsMidRollout(t, true, 0)
	ds, dsRevs, dsPods, nodes := surgeFixture(t, "1", "0")
	_, err := planKind(sts, stsRevs, stsPods, nil, "sometimes", kindNow, nil)
	if !errors.Is(err, planner.ErrNotModelled) || err.Error() != `statefulset.apps/web: readiness "sometimes" is not modelled for StatefulSets: use batched, instant, never or timed` {
		t.Errorf("StatefulSet under readiness sometimes: %v, want a refusal wrapping ErrNotModelled", err)
	}
	_, err = planKind(ds, dsRevs, dsPods, nodes, "sometimes", kindNow, nil)
	if !errors.Is(err, planner.ErrNotModelled) {
		t.Errorf("DaemonSet under readiness sometimes: %v, want a refusal wrapping ErrNotModelled", err)
	}
	_, err = planKind(sts, stsRevs, stsPods, nil, planner.ReadinessTimed, kindNow, nil)
	if err == nil || errors.Is(err, planner.ErrNotModelled) {
		t.Errorf("StatefulSet timed without its inputs: %v, want an error that is not ErrNotModelled", err)
	}
}
