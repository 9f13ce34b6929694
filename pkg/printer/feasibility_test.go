package printer_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
)

// stalled is a quota stall at step 1 with a PDB finding and capacity unchecked.
func stalled() *feasibility.Result {
	return &feasibility.Result{
		Checked:   []string{"quota", "pdb", "hpa"},
		Unchecked: []feasibility.Unchecked{{Check: "capacity", Reason: "forbidden to list nodes"}},
		Stall: &feasibility.Stall{Step: 1, Reason: "Quota", Objects: []string{"resourcequota/compute"},
			Message: "1 pod(s) of replicaset/web-5d4f8b9c7 refused: exceeded quota: compute, requested: pods=1, used: pods=3, limited: pods=3"},
		Findings: []feasibility.Finding{
			{Check: "pdb", Severity: "Warning", Object: "poddisruptionbudget/web", Message: "maxUnavailable 2 takes down up to 2 pods at once; poddisruptionbudget/web allows 1 (minAvailable 3 of 4)"},
			{Check: "quota", Step: 1, Severity: "Stall", Object: "resourcequota/compute", Message: "replicaset/web-5d4f8b9c7: 0 of 1 pods created, 1 refused: exceeded quota: compute, requested: pods=1, used: pods=3, limited: pods=3"},
		},
	}
}

func TestPrintFeasibility(t *testing.T) {
	var out bytes.Buffer
	if err := printer.PrintFeasibility(&out, stalled()); err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, "feasibility-stalled", out.Bytes())
}

func TestPrintFeasibilityNothingToSay(t *testing.T) {
	for name, r := range map[string]*feasibility.Result{
		"nil":         nil,
		"all checked": {Checked: feasibility.AllChecks},
		"checks=none": {},
	} {
		var out bytes.Buffer
		if err := printer.PrintFeasibility(&out, r); err != nil || out.Len() != 0 {
			t.Errorf("%s: printed %q (err %v), want nothing", name, out.String(), err)
		}
	}
}

func TestPlanFeasibilityJSON(t *testing.T) {
	got, err := json.Marshal(printer.NewPlanFeasibility(stalled()))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"checked":["quota","pdb","hpa"],"unchecked":[{"check":"capacity","reason":"forbidden to list nodes"}],` +
		`"stall":{"step":1,"reason":"Quota","message":"1 pod(s) of replicaset/web-5d4f8b9c7 refused: exceeded quota: compute, requested: pods=1, used: pods=3, limited: pods=3","objects":["resourcequota/compute"]},` +
		`"findings":[{"check":"pdb","step":0,"severity":"Warning","message":"maxUnavailable 2 takes down up to 2 pods at once; poddisruptionbudget/web allows 1 (minAvailable 3 of 4)","object":"poddisruptionbudget/web"},` +
		`{"check":"quota","step":1,"severity":"Stall","message":"replicaset/web-5d4f8b9c7: 0 of 1 pods created, 1 refused: exceeded quota: compute, requested: pods=1, used: pods=3, limited: pods=3","object":"resourcequota/compute"}]}`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("JSON (-want +got):\n%s", diff)
	}
	if p := printer.NewPlanFeasibility(&feasibility.Result{}); p != nil {
		t.Errorf("checks=none: %+v, want no field", p)
	}
}
