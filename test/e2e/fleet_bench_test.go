//go:build e2e

package e2e

import (
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// BenchmarkFleetPreview (make bench-fleet) measures `kubectl rollplan preview --all` with no
// change on a namespace of FLEET_DEPLOYMENTS (default 2,000) Deployments at 0 replicas, each
// with FLEET_OLD_REPLICASETS (default 3) old ReplicaSets at 0 replicas plus the one the
// Deployment controller makes (8,000 ReplicaSets), beside `kubectl get deploy,rs -o json` of
// the same namespace, in the same run: FLEET_ROUNDS (default 3) rounds, each running the two
// one after the other, both writing to a pipe that is read and dropped. Reported: the median
// wall times and their ratio, the requests each sent (client-go's log at -v=6, one extra run
// each), and the peak resident memory of each process (framework.Measure: GNU time's %M).
//
// The old ReplicaSets are created first, as orphans, then the Deployment: the Deployment
// controller (running, as on a user's cluster) adopts them and creates the new one. Creates
// run 64 at a time through a client without a client-side rate limit.
func BenchmarkFleetPreview(b *testing.B) {
	c := framework.Get(b)
	n, olds, rounds := envInt("FLEET_DEPLOYMENTS", 2000), envInt("FLEET_OLD_REPLICASETS", 3), envInt("FLEET_ROUNDS", 3)
	ns := c.Namespace(b)
	cfg := rest.CopyConfig(c.Config)
	cfg.QPS, cfg.Burst = -1, 0
	fast, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		b.Fatal(err)
	}
	began := time.Now()
	createFleetWith(b, fast, ns, "d", n, olds, 64, nil)
	created := time.Since(began)
	waitSettled(b, c, ns, n*(olds+1))
	b.Logf("namespace %s: %d Deployments, %d ReplicaSets: created in %s, settled (adopted, new ReplicaSets made) after %s",
		ns, n, n*(olds+1), created.Round(time.Millisecond), time.Since(began).Round(time.Millisecond))

	// --checks=none: beside kubectl get deploy,rs, the plugin reads what kubectl reads.
	plugin := []string{c.PluginPath(), "preview", "--all", "--checks=none", "-n", ns}
	kubectl := []string{c.KubectlPath(), "get", "deploy,rs", "-o", "json", "-n", ns}
	pluginReqs, kubectlReqs := benchRequests(b, c.Env(), plugin), benchRequests(b, c.Env(), kubectl)
	for range b.N {
		pr, kr := benchRounds(b, c.Env(), rounds, plugin, kubectl)
		pw, kw, pm, km := pr.walls, kr.walls, pr.maxRSS, kr.maxRSS
		p, k := median(pw), median(kw)
		ratio := p.Seconds() / k.Seconds()
		b.ReportMetric(ratio, "wall-ratio")
		b.ReportMetric(p.Seconds(), "rollplan-s")
		b.ReportMetric(k.Seconds(), "kubectl-s")
		b.ReportMetric(float64(len(pluginReqs)), "rollplan-requests")
		b.ReportMetric(float64(len(kubectlReqs)), "kubectl-requests")
		b.ReportMetric(float64(pm)/1024, "rollplan-maxrss-MiB")
		b.ReportMetric(float64(km)/1024, "kubectl-maxrss-MiB")
		b.Logf("\n%-34s %-28s %-9s %s\n%-34s %-28s %-9d %.1f MiB\n%-34s %-28s %-9d %.1f MiB\nratio rollplan/kubectl (median wall time): %.2f",
			"command", "wall time (rounds; median)", "requests", "peak RSS",
			"kubectl rollplan preview --all", durations(pw, p), len(pluginReqs), float64(pm)/1024,
			"kubectl get deploy,rs -o json", durations(kw, k), len(kubectlReqs), float64(km)/1024, ratio)
		b.Logf("rollplan's requests: %s", strings.Join(pluginReqs, "; "))
	}
	for _, r := range pluginReqs {
		if !strings.HasPrefix(r, "GET /apis/apps/v1/namespaces/"+ns+"/deployments?") && !strings.HasPrefix(r, "GET /apis/apps/v1/namespaces/"+ns+"/replicasets?") {
			b.Errorf("preview --all sent %s: only the paginated LISTs of Deployments and ReplicaSets are expected", r)
		}
	}
}
