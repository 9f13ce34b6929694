package printer

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/stall"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
	"github.com/rollplan/kubectl-rollplan/pkg/workload"
)

var kindAt = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func stalledKind() *pipeline.KindStatus {
	return &pipeline.KindStatus{Ref: target.KindRef{Kind: target.KindStatefulSet, Namespace: "ns", Name: "db"}, At: kindAt,
		Verdict:     workload.Verdict{Message: "Waiting for 1 pods to be ready...\n"},
		Progress:    &pipeline.KindProgress{Updated: 1, Total: 3, UpdateRevision: "db-2", Next: []planner.PodOperation{{Action: "Create", Pod: "db-1", Revision: "db-2"}}},
		Stalled:     []stall.Reason{{Reason: stall.FailedCreate, Pods: 1, Message: "exceeded quota: q", Since: kindAt.Add(-time.Minute), Object: "db"}},
		Feasibility: &feasibility.Result{Checked: []string{"quota"}, Stall: &feasibility.Stall{Step: 1, Reason: "Quota", Message: "exceeded quota: q"}},
		ETABasis:    "none: the rollout does not progress (FailedCreate (1 pod not created))",
	}
}

func TestKindStatusBlocks(t *testing.T) {
	var b strings.Builder
	for _, bl := range KindStatusBlocks(stalledKind()) {
		b.WriteString(bl.Text)
	}
	want := "Waiting for 1 pods to be ready...\n" +
		"  step 1 of 3 (update revision db-2); next: Create db-1 (revision db-2)\n" +
		"  not progressing: FailedCreate (1 pod not created): exceeded quota: q\n" +
		"  eta: none: the rollout does not progress (FailedCreate (1 pod not created))\n" +
		"\nWill stall at the controller's next sync: Quota: exceeded quota: q\n"
	if b.String() != want {
		t.Errorf("blocks:\n%s\nwant:\n%s", b.String(), want)
	}
	// an ETA: its key leaves the countdown out, so a --watch does not print it every read.
	s := stalledKind()
	s.Stalled, s.Feasibility, s.HasETA, s.ETA, s.ETABasis = nil, nil, true, 12*time.Second, "pods Ready after 2s (--pod-ready-after)"
	a := KindStatusBlocks(s)
	s.ETA = 10 * time.Second
	c := KindStatusBlocks(s)
	if a[2].Text != "  eta: 12s more, at 2026-01-02T03:04:17Z (time model: pods Ready after 2s (--pod-ready-after))\n" || a[2].Key != c[2].Key || a[2].Text == c[2].Text {
		t.Errorf("eta blocks %q / %q", a[2], c[2])
	}
	// done: kubectl's line alone.
	s.Verdict = workload.Verdict{Message: "partitioned roll out complete: 3 new pods have been updated...\n", Done: true}
	if got := KindStatusBlocks(s); len(got) != 1 {
		t.Errorf("done: %d blocks", len(got))
	}
}

func TestNewWorkloadStatus(t *testing.T) {
	s := stalledKind()
	s.ProgressErr = errors.New("forbidden")
	data, err := json.Marshal(NewWorkloadStatus(s))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"kind":"WorkloadStatus"`, `"workload":{"kind":"StatefulSet","namespace":"ns","name":"db"}`,
		`"message":"Waiting for 1 pods to be ready..."`, `"updated":1,"total":3`, `"next":[{"action":"Create","pod":"db-1","revision":"db-2"}]`,
		`"stalled":[{"reason":"FailedCreate","pods":1,"message":"exceeded quota: q","since":"2026-01-02T03:03:05Z","object":"db"}]`,
		`"feasibility":{"checked":["quota"],"stall":{"step":1,"reason":"Quota","message":"exceeded quota: q"}}`,
		`"etaBasis":"none: the rollout does not progress`, `"progressError":"forbidden"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("no %s in\n%s", want, data)
		}
	}
}
