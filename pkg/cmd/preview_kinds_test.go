package cmd

import (
	"bytes"
	"strings"
	"testing"

	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/planner/daemonset"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

func TestPrintKindPlan(t *testing.T) {
	var b bytes.Buffer
	printKindPlan(&b, &pipeline.KindPlan{
		Workload:       pipeline.WorkloadRef{Kind: "DaemonSet", Namespace: "ns", Name: "agent"},
		UpdateRevision: "agent-85", UpdateRevisionNumber: 2, Strategy: "RollingUpdate", Outcome: "Complete", Syncs: 4, MaxUnavailable: 1,
		PodOperations: []pipeline.KindPodOperation{
			{Step: 1, Action: "Delete", Pod: "agent-x", Node: "a", Revision: "agent-7c", RevisionNumber: 1},
			{Step: 2, Action: "Create", Node: "a", Revision: "agent-85", RevisionNumber: 2},
		},
		Nodes: []daemonset.NodeReport{{Name: "a", ShouldRun: true}, {Name: "gpu", Reason: "taint gpu:NoSchedule not tolerated"}},
	})
	want := `daemonset/agent (namespace ns): update revision 2 (agent-85), strategy RollingUpdate, delete first: up to 1 nodes without a pod at once
  sync 1: Delete agent-x on node a (revision 1 agent-7c)
  sync 2: Create (new pod) on node a (revision 2 agent-85)
  node gpu: no pod: taint gpu:NoSchedule not tolerated
Outcome: Complete (4 syncs)

`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	printKindPlan(&b, &pipeline.KindPlan{
		Workload:       pipeline.WorkloadRef{Kind: "StatefulSet", Namespace: "ns", Name: "db"},
		UpdateRevision: "db-9", UpdateRevisionNumber: 3, Strategy: "OnDelete", Outcome: "WaitingForDelete",
		PodOperations: []pipeline.KindPodOperation{}, WaitingForDelete: []string{"db-0", "db-1"},
	})
	if got := b.String(); !strings.Contains(got, "  no pod operation\n") || !strings.Contains(got, "waiting for delete (OnDelete): db-0, db-1") {
		t.Errorf("OnDelete: %s", got)
	}
}

func TestValidatePreviewKinds(t *testing.T) {
	for _, tc := range []struct {
		kind   target.Kind
		change pipeline.KindChange
		want   string
	}{
		{target.KindDaemonSet, pipeline.KindChange{Partition: ptr.To(int32(1))}, "StatefulSet fields"},
		{target.KindStatefulSet, pipeline.KindChange{Restart: true, Undo: true}, "two changes"},
		{target.KindStatefulSet, pipeline.KindChange{Replicas: ptr.To(int32(-1))}, "0 or more"},
		{target.KindStatefulSet, pipeline.KindChange{Partition: ptr.To(int32(2))}, ""},
	} {
		o := &KindsOptions{Verb: "preview", Args: target.KindArgs{Kind: tc.kind}, Change: tc.change}
		err := o.validatePreview()
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s %+v: err %v, want %q", tc.kind, tc.change, err, tc.want)
		}
	}
}
