//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// timedCase is one rollout of TestTimedPredictionMatchesRollout: 20 replicas with a
// strategy, pods that kwok makes Ready min after creation (or uniformly min..max per pod).
type timedCase struct {
	name, surge, unavailable string
	min, max                 time.Duration
	flag                     string // the same delay as --pod-ready-after
	short                    bool   // also in make e2e (make test)
}

var timedCases = []timedCase{
	{"25%/25% 2s", "25%", "25%", 2 * time.Second, 0, "2s", true},
	{"maxSurge 0 2s", "0", "25%", 2 * time.Second, 0, "2s", false},
	{"maxUnavailable 0 2s", "25%", "0", 2 * time.Second, 0, "2s", false},
	{"25%/25% 1-4s", "25%", "25%", time.Second, 4 * time.Second, "1s..4s", false},
	{"maxSurge 0 1-4s", "0", "25%", time.Second, 4 * time.Second, "1s..4s", true},
	{"maxUnavailable 0 1-4s", "25%", "0", time.Second, 4 * time.Second, "1s..4s", false},
}

// TestTimedPredictionMatchesRollout: for 20 replicas with 25%/25%, maxSurge 0 and
// maxUnavailable 0, pods that kwok makes Ready 2 s after creation, or 1-4 s per pod (the
// ready-after annotations), the duration `preview --readiness timed` predicts for a rollout
// is within 25% of the rollout's measured duration (from the update to the moment the
// Deployment's status is complete). The prediction comes from what the plugin measures on
// the cluster: the Deployment is created and rolled out once (its history), then preview
// measures its pods (creation to Ready) and fits the sync latency to that rollout (the
// controllers' reaction per write); then the second rollout is made and measured. The
// prediction with --pod-ready-after (kwok's delay, the latency still fitted) is logged
// beside it and held to the same bound. The figures are logged side by side.
//
// make e2e (so make test) runs two cases (25%/25% 2s, maxSurge 0 1-4s), a case that misses
// run once more on a fresh Deployment; ROLLPLAN_E2E_TIMED=1 (make e2e-timed) runs all six,
// each once.
func TestTimedPredictionMatchesRollout(t *testing.T) {
	c := framework.Get(t)
	ns := c.Namespace(t)
	all := os.Getenv("ROLLPLAN_E2E_TIMED") != ""
	var table []string
	for i, tc := range timedCases {
		if !all && !tc.short {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			row, misses := timedRollout(t, c, ns, fmt.Sprintf("web%d", i), tc)
			table = append(table, row)
			if len(misses) > 0 && !all {
				// make test runs on a shared CI machine: a case off by more than 25% is run
				// once more on a fresh Deployment, and that run decides (make e2e-timed
				// does not retry).
				t.Logf("off by more than 25%%, run once more: %s", strings.Join(misses, "; "))
				row, misses = timedRollout(t, c, ns, fmt.Sprintf("web%d-again", i), tc)
				table = append(table, row+" (again)")
			}
			for _, m := range misses {
				t.Error(m)
			}
		})
	}
	t.Logf("predicted vs measured (20 replicas; predicted from the pods and the last rollout):\n%s", strings.Join(table, "\n"))
}

// timedRollout runs one case (see TestTimedPredictionMatchesRollout) and returns its row
// and, for each prediction off by more than 25% of the measured duration, a line saying so.
func timedRollout(t *testing.T, c *framework.Cluster, ns, name string, tc timedCase) (string, []string) {
	t.Helper()
	c.CreateDeployment(t, ns, framework.NewDeployment(name).Replicas(20).RollingUpdate(tc.surge, tc.unavailable).ReadyAfter(tc.min, tc.max))
	c.WaitForRollout(t, ns, name, time.Minute)
	// The history: one rollout, measured by preview below (its pods and its duration).
	c.UpdateDeployment(t, ns, name, func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "nginx:1.19" })
	c.WaitForRollout(t, ns, name, 2*time.Minute)

	args := []string{"deploy/" + name, "--image", "app=nginx:1.20", "--readiness", "timed"}
	byPods := previewPlan(t, c, ns, args...)
	byFlag := previewPlan(t, c, ns, append(args, "--pod-ready-after", tc.flag)...)
	for _, p := range []*v1alpha1.RolloutPlan{byPods, byFlag} {
		if p.Duration == nil || p.Timing == nil || p.Timing.SyncLatencySource != "rollout" || p.Timing.SyncLatencyTook == nil {
			t.Fatalf("timed plan without a duration or a sync latency fitted to the last rollout: %+v / %+v", p.Duration, p.Timing)
		}
	}
	began := time.Now()
	c.UpdateDeployment(t, ns, name, func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "nginx:1.20" })
	c.WaitForRollout(t, ns, name, 2*time.Minute)
	measured := time.Since(began)

	tm := byPods.Timing
	row := fmt.Sprintf("%-22s measured %-6s predicted %-6s (pods: median %s of %d, %s..%s; latency %s per write, last rollout took %s, modelled %s) | --pod-ready-after %s: %s (latency %s)",
		tc.name, measured.Round(10*time.Millisecond), byPods.Duration.Duration, tm.ReadyAfterMedian.Duration, tm.Samples,
		tm.ReadyAfterMin.Duration, tm.ReadyAfterMax.Duration, tm.SyncLatency.Duration, tm.SyncLatencyTook.Duration, tm.SyncLatencyModelled.Duration,
		tc.flag, byFlag.Duration.Duration, byFlag.Timing.SyncLatency.Duration)
	t.Log(row)
	var misses []string
	for _, p := range []struct {
		what      string
		predicted time.Duration
	}{{"measured pods", byPods.Duration.Duration}, {"--pod-ready-after " + tc.flag, byFlag.Duration.Duration}} {
		if off := p.predicted - measured; off > measured/4 || -off > measured/4 {
			misses = append(misses, fmt.Sprintf("%s: %s: predicted %s, measured %s: off by more than 25%%", tc.name, p.what, p.predicted, measured.Round(10*time.Millisecond)))
		}
	}
	return row, misses
}
