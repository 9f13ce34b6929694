package printer

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/estimate"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
)

// TestKindTimingDaemonSet: a DaemonSet's timed plan says where the ready time comes from (its
// own pods), the ETA and that the node order is not predicted; without a duration (OnDelete)
// the ETA is none and -o json has timing but no duration.
func TestKindTimingDaemonSet(t *testing.T) {
	e := estimate.Estimate{Source: estimate.SourcePods, Min: 3 * time.Second, Median: 3 * time.Second, Max: 3 * time.Second, Samples: 3,
		Latency: estimate.Latency{PerWrite: 500 * time.Millisecond, Source: estimate.LatencyFlag}}
	p := &pipeline.KindPlan{Workload: pipeline.WorkloadRef{Kind: "DaemonSet", Namespace: "ns", Name: "agent"}, Outcome: "Complete",
		Duration: &metav1.Duration{Duration: 11 * time.Second}, Estimate: &e, MinReadySeconds: 2}
	var b bytes.Buffer
	PrintKindTiming(&b, p)
	for _, want := range []string{
		"Readiness: pods Ready 3s after creation (median of 3 pods; 3s..3s), measured on the DaemonSet's own pods; available 2s later (minReadySeconds)",
		"ETA:    11s after the change: the daemonset is complete (every node's pod updated and available; which nodes go first is the controller's random order, the time is not).",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, b.String())
		}
	}
	p.Outcome, p.Duration = "WaitingForDelete", nil
	b.Reset()
	PrintKindTiming(&b, p)
	if !strings.Contains(b.String(), "ETA:    none: the rollout ends WaitingForDelete (OnDelete replaces a pod only when someone deletes it).") {
		t.Errorf("OnDelete:\n%s", b.String())
	}
	js, err := json.Marshal(NewKindRolloutPlan(p, "timed"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(js), `"duration"`) || !strings.Contains(string(js), `"timing":{"source":"pods"`) {
		t.Errorf("OnDelete -o json: %s", js)
	}
}
