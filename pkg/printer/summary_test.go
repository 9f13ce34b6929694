package printer

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// plan simulates d over rss and returns its API object.
func plan(t *testing.T, d *appsv1.Deployment, readiness planner.Readiness, rss ...*appsv1.ReplicaSet) *v1alpha1.RolloutPlan {
	t.Helper()
	p, err := planner.Simulate(planner.Input{Deployment: d, ReplicaSets: rss, Readiness: readiness})
	if err != nil {
		t.Fatal(err)
	}
	return NewRolloutPlan(p, nil)
}

// fleetPlans: web rolls 10 replicas to a new image (25%/25%), api is settled, db stalls.
func fleetPlans(t *testing.T) (web, api, db *v1alpha1.RolloutPlan) {
	d := testutil.Deployment("web").Namespace("shop").Replicas(10).Revision(1).Build()
	old := testutil.ReplicaSetFor(d).Created(1).Build()
	web = plan(t, testutil.Deployment("web").Namespace("shop").Replicas(10).Revision(1).Image("nginx:1.27").Build(), planner.ReadinessBatched, old)
	a := testutil.Deployment("api").Namespace("shop").Replicas(3).Revision(2).Build()
	api = plan(t, a, planner.ReadinessBatched, testutil.ReplicaSetFor(a).Created(1).Build())
	b := testutil.Deployment("db").Namespace("bank").Replicas(4).Revision(1).Build()
	dbOld := testutil.ReplicaSetFor(b).Created(1).Build()
	db = plan(t, testutil.Deployment("db").Namespace("bank").Replicas(4).Revision(1).Image("pg:17").Build(), planner.ReadinessNever, dbOld)
	return web, api, db
}

func TestFigures(t *testing.T) {
	web, api, db := fleetPlans(t)
	for _, tc := range []struct {
		name string
		p    *v1alpha1.RolloutPlan
		want PlanFigures
	}{
		// 10 replicas, maxSurge 3, maxUnavailable 2: at most 13 pods, at least 8 available.
		{"rolling update", web, PlanFigures{Writes: 6, PeakPods: 13, MinAvailable: 8}},
		{"no change", api, PlanFigures{Writes: 0, PeakPods: 3, MinAvailable: 3}},
		// 4 replicas, maxSurge 1, maxUnavailable 1: 5 pods, then 3 available once one old goes.
		{"stalls", db, PlanFigures{Writes: 3, PeakPods: 5, MinAvailable: 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, Figures(tc.p)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestPrintSummary(t *testing.T) {
	web, api, db := fleetPlans(t)
	s := Summary{Rows: []SummaryRow{
		{Namespace: "shop", Name: "web", Change: "image *=nginx:1.27", Plan: web},
		{Namespace: "shop", Name: "api", Change: "none", Plan: api},
		{Namespace: "bank", Name: "db", Change: "image *=pg:17", Plan: db},
		{Namespace: "shop", Name: "gone", Err: errors.New("deployments.apps \"gone\" not found\nsecond line")},
	}}
	var out bytes.Buffer
	if err := PrintSummary(&out, s); err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, "summary", out.Bytes())

	s.ExtraColumns = []string{"CONFIG"}
	s.Rows[0].Extra = []string{"cm/app"}
	out.Reset()
	if err := PrintSummary(&out, s); err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"OUTCOME CONFIG", "Complete cm/app", "NoChange -", "Stalled -", "found -"} {
		line := strings.Fields(strings.Split(out.String(), "\n")[i])
		if got := strings.Join(line[len(line)-2:], " "); got != want {
			t.Errorf("line %d ends %q, want %q:\n%s", i, got, want, out.String())
		}
	}
}

func TestRolloutPlanList(t *testing.T) {
	web, api, _ := fleetPlans(t)
	l := NewRolloutPlanList([]*v1alpha1.RolloutPlan{web, api})
	o := NewOutputFlags()
	o.Output = "json"
	p, err := o.ToPrinter()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := p.PrintObj(l, &out); err != nil {
		t.Fatal(err)
	}
	var got struct {
		APIVersion, Kind string
		Items            []struct {
			APIVersion, Kind string
			Deployment       struct{ Name string }
			Outcome          string
		}
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.APIVersion != "rollplan.dev/v1alpha1" || got.Kind != "RolloutPlanList" || len(got.Items) != 2 {
		t.Fatalf("%s", out.String())
	}
	for i, want := range []string{"web", "api"} {
		it := got.Items[i]
		if it.Kind != "RolloutPlan" || it.APIVersion != "rollplan.dev/v1alpha1" || it.Deployment.Name != want {
			t.Errorf("item %d: %+v", i, it)
		}
	}
	// The items are today's RolloutPlan objects, field for field.
	var one bytes.Buffer
	if err := p.PrintObj(web, &one); err != nil {
		t.Fatal(err)
	}
	var whole map[string]any
	var item map[string]any
	_ = json.Unmarshal(out.Bytes(), &whole)
	_ = json.Unmarshal(one.Bytes(), &item)
	if d := cmp.Diff(item, whole["items"].([]any)[0]); d != "" {
		t.Errorf("list item differs from the RolloutPlan (-plan +item):\n%s", d)
	}
	if empty := NewRolloutPlanList(nil); empty.Items == nil {
		t.Error("an empty list has null items")
	}
}
