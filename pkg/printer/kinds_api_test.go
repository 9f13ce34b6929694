package printer

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/planner/daemonset"
)

func TestNewKindRolloutPlan(t *testing.T) {
	p := &pipeline.KindPlan{
		Workload:       pipeline.WorkloadRef{Kind: "DaemonSet", Namespace: "ns", Name: "agent"},
		UpdateRevision: "agent-85688477c5", UpdateRevisionNumber: 2, Strategy: "OnDelete", Outcome: "WaitingForDelete", Syncs: 2,
		PodOperations:    []planner.PodOperation{{Step: 1, Action: "Create", Node: "b", Revision: "agent-85688477c5", RevisionNumber: 2}},
		WaitingForDelete: []string{"agent-a"},
		Nodes:            []daemonset.NodeReport{{Name: "gpu", Reason: "taint gpu:NoSchedule not tolerated"}},
	}
	b, err := json.Marshal(NewKindRolloutPlan(p, "batched"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"kind":"RolloutPlan"`,
		`"workload":{"kind":"DaemonSet","namespace":"ns","name":"agent","strategy":"OnDelete"}`,
		`"podOperations":[{"step":1,"action":"Create","pod":"","node":"b","revision":"agent-85688477c5","revisionNumber":2}]`,
		`"waitingForDelete":["agent-a"]`,
		`"nodes":[{"name":"gpu","shouldRun":false,"reason":"taint gpu:NoSchedule not tolerated"}]`,
		`"updateRevisionNumber":2`, `"outcome":"WaitingForDelete"`,
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("%s\nlacks %s", b, want)
		}
	}
}
