//go:build e2e

package e2e

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// BenchmarkManifestPreview (make bench-manifests) measures `kubectl rollplan preview -f DIR`
// of a manifest set of MANIFEST_DEPLOYMENTS (default 200) Deployments, half of them live
// (applied first at 0 replicas: the set changes their image and scales them to 3, an update)
// and half new (a create), one file each, plus a ConfigMap; beside `kubectl diff -f DIR` of
// the same set in the same run (kubectl's own preview of an apply: a GET and a server-side
// dry run per object). MANIFEST_ROUNDS (default 3) rounds, each running the two one after the
// other, their stdout read and dropped. Reported: the median wall times, the requests each
// sent by verb and resource (client-go's log at -v=6, one extra run each) and the peak
// resident memory of each process (framework.Measure: GNU time's %M).
func BenchmarkManifestPreview(b *testing.B) {
	c := framework.Get(b)
	n, rounds := envInt("MANIFEST_DEPLOYMENTS", 200), envInt("MANIFEST_ROUNDS", 3)
	ns := c.Namespace(b)
	live, set := b.TempDir(), b.TempDir()
	for i := range n {
		name := fmt.Sprintf("m%03d", i)
		manifest := manifestDeployment(name, 3, "nginx:1.19")
		if i%2 == 0 {
			writeManifests(b, live, map[string]string{name + ".yaml": manifestDeployment(name, 0, "nginx:1.18")})
		}
		writeManifests(b, set, map[string]string{name + ".yaml": manifest})
	}
	writeManifests(b, set, map[string]string{"zz-config.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {a: b}\n"})
	if res := c.Kubectl(b, "apply", "-n", ns, "-f", live); res.ExitCode != 0 {
		b.Fatalf("kubectl apply: %s", res.Stderr)
	}

	plugin := []string{c.PluginPath(), "preview", "-n", ns, "-f", set, "--summary", "--checks=none"}
	kubectl := []string{c.KubectlPath(), "diff", "-n", ns, "-f", set}
	env := append(c.Env(), "KUBECTL_EXTERNAL_DIFF=true") // kubectl diff's diff program: its output is not measured
	pluginReqs, kubectlReqs := benchRequests(b, env, plugin), benchRequests(b, env, kubectl, 1)
	for range b.N {
		pr, kr := benchRounds(b, env, rounds, plugin, kubectl, 1) // kubectl diff exits 1: differences found
		pw, kw, pm, km := pr.walls, kr.walls, pr.maxRSS, kr.maxRSS
		p, k := median(pw), median(kw)
		b.ReportMetric(p.Seconds(), "rollplan-s")
		b.ReportMetric(k.Seconds(), "kubectl-diff-s")
		b.ReportMetric(float64(len(pluginReqs)), "rollplan-requests")
		b.ReportMetric(float64(len(kubectlReqs)), "kubectl-diff-requests")
		b.ReportMetric(float64(pm)/1024, "rollplan-maxrss-MiB")
		b.ReportMetric(float64(km)/1024, "kubectl-diff-maxrss-MiB")
		b.Logf("\n%d Deployments (%d live, %d new) and 1 ConfigMap, one file each\n%-40s %-26s %-9s %s\n%-40s %-26s %-9d %.1f MiB\n%-40s %-26s %-9d %.1f MiB",
			n, (n+1)/2, n/2, "command", "wall s (rounds; median)", "requests", "peak RSS",
			"kubectl rollplan preview -f DIR", durations(pw, p), len(pluginReqs), float64(pm)/1024,
			"kubectl diff -f DIR", durations(kw, k), len(kubectlReqs), float64(km)/1024)
		b.Logf("rollplan's requests: %s", benchTally(pluginReqs))
		b.Logf("kubectl diff's requests: %s", benchTally(kubectlReqs))
	}
	// The reads are the two LISTs of the namespace (shared by the plans and the ConfigMap's
	// config restarts) and the GET of the ConfigMap; the rest are the dry runs, one per
	// Deployment and one of the ConfigMap (a create: it is not live).
	tally := benchTally(pluginReqs)
	want := fmt.Sprintf("GET configmaps x1, GET deployments x1, GET replicasets x1, POST configmaps?dryRun x1, POST deployments?dryRun x%d, PUT deployments?dryRun x%d", n/2, (n+1)/2)
	if n/2 == 0 {
		want = fmt.Sprintf("GET configmaps x1, GET deployments x1, GET replicasets x1, POST configmaps?dryRun x1, PUT deployments?dryRun x%d", n)
	}
	if tally != want {
		b.Errorf("rollplan's requests: %s; want %s", tally, want)
	}
}

// benchTally counts requests by verb and resource ("GET deployments x1, PUT
// deployments?dryRun x100"), sorted (the dry runs are concurrent).
func benchTally(reqs []string) string {
	var keys []string
	counts := map[string]int{}
	for _, r := range reqs {
		verb, raw, _ := strings.Cut(r, " ")
		key := verb + " " + raw
		if u, err := url.Parse(raw); err == nil {
			key = verb + " " + u.Path + " (discovery)"
			parts := strings.Split(strings.Trim(u.Path, "/"), "/")
			switch i := slices.Index(parts, "namespaces"); {
			case i >= 0 && i+2 < len(parts):
				key = verb + " " + parts[i+2] // .../namespaces/NS/RESOURCE[/NAME]
				if u.Query().Has("dryRun") {
					key += "?dryRun"
				}
			case i >= 0:
				key = verb + " namespaces" // the namespace itself (kubectl diff checks it)
			}
		}
		if counts[key] == 0 {
			keys = append(keys, key)
		}
		counts[key]++
	}
	slices.Sort(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s x%d", k, counts[k]))
	}
	return strings.Join(parts, ", ")
}
