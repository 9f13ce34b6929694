package feasibility_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
)

// TestStateFile runs the checks as preview would offline: a state file of
// `kubectl get deploy,rs,quota,limitrange -o yaml` (the sample's 10 pods of nginx:1.20, a
// quota of 10 pods, all used), the change `set image nginx=nginx:1.21`, the default 25%/25%.
// Step 1 asks for 3 surge pods, all refused; step 2 takes 2 old pods down and 2 new pods are
// created; the rollout goes on two pods at a time and completes.
func TestStateFile(t *testing.T) {
	sample, err := os.ReadFile("../cluster/testdata/web.yaml")
	if err != nil {
		t.Fatal(err)
	}
	file := string(sample) + "---\n" + strings.Join([]string{
		"apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: compute, namespace: default}\nspec: {hard: {pods: \"10\"}}\nstatus: {hard: {pods: \"10\"}, used: {pods: \"10\"}}\n",
		"apiVersion: v1\nkind: LimitRange\nmetadata: {name: defaults, namespace: default}\nspec: {limits: [{type: Container, defaultRequest: {cpu: 100m}}]}\n",
	}, "---\n")
	s, err := cluster.LoadReader(strings.NewReader(file), "state.yaml", "default", "web")
	if err != nil {
		t.Fatal(err)
	}
	d := s.Deployment.DeepCopy()
	d.Spec.Template.Spec.Containers[0].Image = "nginx:1.21"
	res, err := feasibility.Check(feasibility.Input{Plan: planner.Input{Deployment: d, ReplicaSets: s.ReplicaSets}, Cluster: *s.CheckObjects})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stall != nil || res.Plan == nil || res.Plan.Outcome != planner.OutcomeComplete {
		t.Errorf("stall %+v, replanned %v: want a longer plan that completes", res.Stall, res.Plan != nil)
	}
	var out bytes.Buffer
	if err := printer.PrintFeasibility(&out, res); err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, "state-file-quota", out.Bytes())
}
