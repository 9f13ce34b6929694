package cmd

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
)

// testdata/kinds-state.yaml is `kubectl get -n ks1 sts,ds,controllerrevisions,pods,nodes -o
// yaml` of the local cluster: StatefulSet db (3 replicas, nginx:1.18, revision 1) and
// DaemonSet agent (one pod on fake-node-1), both rolled out.

func TestPreviewKindsStateFile(t *testing.T) {
	out, errOut, code := runRoot(t, "", "preview", "sts/db", "ds/agent", "-n", "ks1", "--state-file", "testdata/kinds-state.yaml", "--image", "app=nginx:1.19", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var l v1alpha1.RolloutPlanList
	if err := json.Unmarshal([]byte(out), &l); err != nil || l.Kind != "RolloutPlanList" || len(l.Items) != 2 {
		t.Fatalf("want a RolloutPlanList of 2: %v\n%s", err, out)
	}
	var got []string
	for _, p := range l.Items {
		for _, op := range p.PodOperations {
			got = append(got, fmt.Sprintf("%s/%s: %s %s %s r%d", p.Workload.Kind, p.Workload.Name, op.Action, op.Pod, op.Node, op.RevisionNumber))
		}
	}
	want := []string{"StatefulSet/db: Delete db-2  r1", "StatefulSet/db: Create db-2  r2", "StatefulSet/db: Delete db-1  r1",
		"StatefulSet/db: Create db-1  r2", "StatefulSet/db: Delete db-0  r1", "StatefulSet/db: Create db-0  r2",
		"DaemonSet/agent: Delete agent-2fz6m fake-node-1 r1", "DaemonSet/agent: Create  fake-node-1 r2"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pod operations (-want +got):\n%s", diff)
	}

	// -l/--all over the file, human: the summary table, then the plan.
	out, _, code = runRoot(t, "", "preview", "ds", "--all", "-n", "ks1", "--state-file", "testdata/kinds-state.yaml", "--restart")
	if code != 0 || !strings.HasPrefix(out, "NAMESPACE   WORKLOAD") || !strings.Contains(out, "ks1         daemonset/agent") || !strings.Contains(out, "daemonset/agent (namespace ks1): update revision 2") {
		t.Errorf("ds --all: exit %d\n%s", code, out)
	}

	_, errOut, code = runRoot(t, "", "preview", "sts/nope", "-n", "ks1", "--state-file", "testdata/kinds-state.yaml")
	if code != 1 || !strings.Contains(errOut, `statefulsets.apps "nope" not found in testdata/kinds-state.yaml`) {
		t.Errorf("missing name: exit %d, %s", code, errOut)
	}
}
