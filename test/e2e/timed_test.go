//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// TestTimedPredictionMatchesRollout: for 20 replicas with 25%/25%, maxSurge 0 and
// maxUnavailable 0, pods that kwok makes Ready 2 s after creation, or 1-4 s spread per pod
// (the ready-after annotations), the total duration preview predicts under --readiness timed
// is within 25% of the rollout's measured duration (from the update to the moment the
// Deployment's status is complete), both with --pod-ready-after matching kwok's delay and
// with the readiness measured on the Deployment's own pods (created by its first rollout).
// The figures are logged side by side.
//
// It takes about two minutes and measures wall-clock durations, which a loaded machine
// stretches (the controller's reaction to each pod becoming ready is not in the time model),
// so it runs only with ROLLPLAN_E2E_TIMED=1: `make e2e-timed`.
func TestTimedPredictionMatchesRollout(t *testing.T) {
	if os.Getenv("ROLLPLAN_E2E_TIMED") == "" {
		t.Skip("the timed model against measured rollouts runs with ROLLPLAN_E2E_TIMED=1 (make e2e-timed)")
	}
	c := framework.Get(t)
	ns := c.Namespace(t)
	cases := []struct {
		name, surge, unavailable string
		min, max                 time.Duration
		flag                     string
	}{
		{"25%/25% 2s", "25%", "25%", 2 * time.Second, 0, "2s"},
		{"maxSurge 0 2s", "0", "25%", 2 * time.Second, 0, "2s"},
		{"maxUnavailable 0 2s", "25%", "0", 2 * time.Second, 0, "2s"},
		{"25%/25% 1-4s", "25%", "25%", time.Second, 4 * time.Second, "1s..4s"},
		{"maxSurge 0 1-4s", "0", "25%", time.Second, 4 * time.Second, "1s..4s"},
		{"maxUnavailable 0 1-4s", "25%", "0", time.Second, 4 * time.Second, "1s..4s"},
	}
	var table []string
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			name := fmt.Sprintf("web%d", i)
			c.CreateDeployment(t, ns, framework.NewDeployment(name).Replicas(20).RollingUpdate(tc.surge, tc.unavailable).ReadyAfter(tc.min, tc.max))
			c.WaitForRollout(t, ns, name, time.Minute)
			args := []string{"deploy/" + name, "--image", "app=nginx:1.19", "--readiness", "timed"}
			byFlag := previewPlan(t, c, ns, append(args, "--pod-ready-after", tc.flag)...)
			byPods := previewPlan(t, c, ns, args...)
			if byFlag.Duration == nil || byPods.Duration == nil || byPods.Timing == nil {
				t.Fatalf("timed plans without a duration or timing: %+v / %+v", byFlag.Duration, byPods.Duration)
			}
			began := time.Now()
			c.UpdateDeployment(t, ns, name, func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "nginx:1.19" })
			c.WaitForRollout(t, ns, name, 2*time.Minute)
			measured := time.Since(began)
			sampled := fmt.Sprintf("%s (pods: median %s of %d, %s..%s)", byPods.Duration.Duration, byPods.Timing.ReadyAfterMedian.Duration,
				byPods.Timing.Samples, byPods.Timing.ReadyAfterMin.Duration, byPods.Timing.ReadyAfterMax.Duration)
			row := fmt.Sprintf("%-24s predicted %-7s (--pod-ready-after %s), %s; measured %s",
				tc.name, byFlag.Duration.Duration, tc.flag, sampled, measured.Round(10*time.Millisecond))
			t.Log(row)
			table = append(table, row)
			for what, p := range map[string]time.Duration{"--pod-ready-after " + tc.flag: byFlag.Duration.Duration, "sampled from pods": byPods.Duration.Duration} {
				if off := p - measured; off > measured/4 || -off > measured/4 {
					t.Errorf("%s: predicted %s, measured %s: off by more than 25%%", what, p, measured.Round(10*time.Millisecond))
				}
			}
		})
	}
	t.Logf("predicted vs measured (20 replicas):\n%s", strings.Join(table, "\n"))
}
