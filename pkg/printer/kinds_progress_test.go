package printer

import (
	"testing"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

func TestKindProgressLine(t *testing.T) {
	for _, c := range []struct {
		p    pipeline.KindProgress
		want string
	}{
		{pipeline.KindProgress{Updated: 1, Total: 3, UpdateRevision: "db-2", Next: []planner.PodOperation{{Action: "Delete", Pod: "db-1", Revision: "db-1r"}}},
			"  step 1 of 3 (update revision db-2); next: Delete db-1 (revision db-1r)\n"},
		{pipeline.KindProgress{Updated: 0, Total: 2, UpdateRevision: "agent-x", Next: []planner.PodOperation{{Action: "Create", Node: "n1", Revision: "agent-x"}}},
			"  step 0 of 2 (update revision agent-x); next: Create a pod on node n1 (revision agent-x)\n"},
		{pipeline.KindProgress{Updated: 0, Total: 3, UpdateRevision: "db-2", Waiting: "pods to become Ready: db-2"},
			"  step 0 of 3 (update revision db-2); waiting for: pods to become Ready: db-2\n"},
	} {
		if got := KindProgressLine(&c.p); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}
