package previewrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// TestRunFleet: -l tier=front in shop selects web (mid-rollout, 2 of 4 pods new) and api
// (settled), read with one LIST each of Deployments and ReplicaSets; -o json is one
// RolloutPlanList; with pods never Ready web's rollout stalls, so --fail-on-stall ends in
// Exit 3 and without it nothing.
func TestRunFleet(t *testing.T) {
	web := testutil.Deployment("web").Namespace("shop").Label("tier", "front").Replicas(4).Image("nginx:1.19").Revision(2).Build()
	webOld := testutil.ReplicaSetFor(testutil.Deployment("web").Namespace("shop").Label("tier", "front").Replicas(4).Build()).OwnedBy(web).Created(1).Replicas(2).Revision(1).Build()
	api := testutil.Deployment("api").Namespace("shop").Label("tier", "front").Replicas(2).Build()
	db := testutil.Deployment("db").Namespace("shop").Label("tier", "back").Replicas(3).Build()
	for _, failOnStall := range []bool{true, false} {
		c := fake.NewClientset(web, webOld, testutil.ReplicaSetFor(web).Created(2).Replicas(2).Build(), api, testutil.ReplicaSetFor(api).Build(), db, testutil.ReplicaSetFor(db).Build())
		var out, errOut bytes.Buffer
		view := printer.PreviewView{Output: printer.NewOutputFlags()}
		view.Output.Output = "json"
		cfg := &Config{
			Preview:     &pipeline.Preview{Readiness: "never", Checks: "none", Now: time.Now},
			View:        view,
			FailOnStall: failOnStall,
			Selection:   &target.Selection{Selector: "tier=front", Namespace: "shop", Many: true, ChunkSize: 500},
			FleetClient: func() (kubernetes.Interface, error) { return c, nil },
			Out:         &out, ErrOut: &errOut,
		}
		err := cfg.Run(context.Background())
		var e *Exit
		switch {
		case failOnStall && (!errors.As(err, &e) || e.Code != CodeStalled || e.Message != ""):
			t.Errorf("--fail-on-stall: got %v, want exit %d", err, CodeStalled)
		case !failOnStall && err != nil:
			t.Errorf("got %v, want no exit", err)
		}
		var l v1alpha1.RolloutPlanList
		if err := json.Unmarshal(out.Bytes(), &l); err != nil {
			t.Fatalf("%v\n%s", err, out.String())
		}
		var got []string
		for _, p := range l.Items {
			got = append(got, p.Deployment.Name+" "+p.Outcome)
		}
		if d := cmp.Diff([]string{"api NoChange", "web Stalled"}, got); d != "" || errOut.Len() != 0 {
			t.Errorf("plans (-want +got):\n%s\nstderr: %s", d, errOut.String())
		}
		lists := 0
		for _, a := range c.Actions() {
			if a.GetVerb() == "list" {
				lists++
			}
		}
		if lists != 2 {
			t.Errorf("%d LISTs, want 2 (Deployments, ReplicaSets)", lists)
		}
	}
}
