//go:build e2e

package e2e

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// BenchmarkDriveReactionTime measures, on the local cluster, how long drive takes to make
// its next ReplicaSet write once the pods a step waits for are available, beside the
// Deployment controller's own reaction measured the same way (rsTimeline.reactions: from
// the ReplicaSet status event that makes a ReplicaSet fully available to the next
// ReplicaSet spec write, both seen by one watch in this process). Each iteration rolls a
// 20-replica Deployment (maxSurge 2, maxUnavailable 1) from nginx:1.18 to nginx:1.19 once
// with drive and once with the controller alone. Reported: the medians in milliseconds,
// the sample counts and the rollouts' wall times.
//
// Run: make bench (or go test -tags e2e -run '^$' -bench DriveReaction -benchtime 1x ./test/e2e/).
func BenchmarkDriveReactionTime(b *testing.B) {
	c := framework.Get(b)
	var driveR, ctrlR []time.Duration
	var driveWall, ctrlWall time.Duration
	setup := func() string {
		ns := c.Namespace(b)
		d := c.CreateDeployment(b, ns, framework.NewDeployment("web").Replicas(20).RollingUpdate("2", "1"))
		c.WaitForRollout(b, ns, d.Name, time.Minute)
		return ns
	}
	for range b.N {
		b.StopTimer()
		ns := setup()
		tl := watchReplicaSets(b, c.Client, ns)
		b.StartTimer()
		began := time.Now()
		res := c.Plugin(b, "drive", "deploy/web", "-n", ns, "--image", "app=nginx:1.19", "--yes")
		driveWall += time.Since(began)
		b.StopTimer()
		if res.ExitCode != 0 {
			b.Fatalf("drive: exit %d\n%s", res.ExitCode, res.Stderr)
		}
		time.Sleep(500 * time.Millisecond)
		tl.stop()
		driveR = append(driveR, tl.reactions()...)

		ns = setup()
		tl = watchReplicaSets(b, c.Client, ns)
		began = time.Now()
		c.UpdateDeployment(b, ns, "web", func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "nginx:1.19" })
		c.WaitForRollout(b, ns, "web", 2*time.Minute)
		ctrlWall += time.Since(began)
		time.Sleep(500 * time.Millisecond)
		tl.stop()
		ctrlR = append(ctrlR, tl.reactions()...)
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(driveMedian(driveR)), "drive-reaction-ms")
	b.ReportMetric(ms(driveMedian(ctrlR)), "controller-reaction-ms")
	b.ReportMetric(float64(len(driveR))/float64(b.N), "drive-samples/op")
	b.ReportMetric(float64(len(ctrlR))/float64(b.N), "controller-samples/op")
	b.ReportMetric(ms(driveWall)/float64(b.N), "drive-rollout-ms")
	b.ReportMetric(ms(ctrlWall)/float64(b.N), "controller-rollout-ms")
	b.Logf("drive reactions %v; controller reactions %v", driveR, ctrlR)
}
