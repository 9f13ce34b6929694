//go:build e2e

package e2e

import (
	"cmp"
	"context"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// BenchmarkFeasibilityPreview (make bench-feasibility) measures `kubectl rollplan preview` of
// one Deployment with every feasibility check on (the default --checks=all) on a cluster of
// FEASIBILITY_NODES (default 100) kwok nodes and FEASIBILITY_PODS (default 5,000) pods, beside
// `kubectl get nodes,pods -A -o json` of the same cluster, in the same run: FEASIBILITY_ROUNDS
// (default 3) rounds, each running the two one after the other. Reported: the median wall
// times and their ratio (goal: at most 1.0), the requests each sent (client-go's log at -v=6,
// one extra run each: LISTs by resource, pages counted) and the peak resident memory of each
// process (framework.Measure: GNU time's %M); beside them, the same preview's median wall
// time with --checks=none (what the checks add).
//
// The pods are bare pods bound to the nodes (spec.nodeName, 100m cpu and 64Mi each), in
// FEASIBILITY_NAMESPACES (default 5) namespaces, created 64 at a time through a client
// without a client-side rate limit; kwok makes them Running. The Deployment (10 replicas,
// 100m cpu) is scheduled by kube-scheduler; the preview changes its image.
func BenchmarkFeasibilityPreview(b *testing.B) {
	c := framework.Get(b)
	nodes, pods := envInt("FEASIBILITY_NODES", 100), envInt("FEASIBILITY_PODS", 5000)
	namespaces, rounds := envInt("FEASIBILITY_NAMESPACES", 5), envInt("FEASIBILITY_ROUNDS", 3)
	const replicas = 10
	cfg := rest.CopyConfig(c.Config)
	cfg.QPS, cfg.Burst = -1, 0
	fast, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		b.Fatal(err)
	}
	began := time.Now()
	names := benchNodes(b, fast, nodes)
	b.Logf("%d kwok nodes Ready and untainted after %s", nodes, time.Since(began).Round(time.Millisecond))

	ns := c.Namespace(b)
	d := framework.NewDeployment("web").Replicas(replicas).Build()
	d.Spec.Template.Spec.Containers[0].Resources.Requests = benchRequestsOf()
	if _, err := c.Client.AppsV1().Deployments(ns).Create(b.Context(), d, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	var spaces []string
	for range namespaces {
		spaces = append(spaces, c.Namespace(b))
	}
	began = time.Now()
	createBoundPods(b, fast, spaces, names, pods-replicas, 64)
	created := time.Since(began)
	c.WaitForRollout(b, ns, "web", 2*time.Minute)
	running := waitRunning(b, fast, pods, 10*time.Minute)
	b.Logf("%d pods in %d namespaces (+ Deployment %s/web, %d replicas): created in %s, %d Running after %s",
		pods-replicas, namespaces, ns, replicas, created.Round(time.Millisecond), running, time.Since(began).Round(time.Millisecond))

	plugin := []string{c.PluginPath(), "preview", "deploy/web", "-n", ns, "--image", "app=nginx:1.19"}
	kubectl := []string{c.KubectlPath(), "get", "nodes,pods", "-A", "-o", "json"}
	pluginReqs, kubectlReqs := benchRequests(b, c.Env(), plugin), benchRequests(b, c.Env(), kubectl)
	none := append(plugin[:len(plugin):len(plugin)], "--checks=none")
	for range b.N {
		pr, kr := benchRounds(b, c.Env(), rounds, plugin, kubectl)
		var nw []time.Duration
		for range rounds {
			nw = append(nw, framework.Measure(b, c.Env(), none).Wall)
		}
		p, k, n := median(pr.walls), median(kr.walls), median(nw)
		ratio := p.Seconds() / k.Seconds()
		b.ReportMetric(ratio, "wall-ratio")
		b.ReportMetric(p.Seconds(), "rollplan-s")
		b.ReportMetric(k.Seconds(), "kubectl-s")
		b.ReportMetric(n.Seconds(), "rollplan-nochecks-s")
		b.ReportMetric(float64(len(pluginReqs)), "rollplan-requests")
		b.ReportMetric(float64(len(kubectlReqs)), "kubectl-requests")
		b.ReportMetric(float64(pr.maxRSS)/1024, "rollplan-maxrss-MiB")
		b.ReportMetric(float64(kr.maxRSS)/1024, "kubectl-maxrss-MiB")
		b.Logf("\n%-50s %-28s %-9s %s\n%-50s %-28s %-9d %.1f MiB\n%-50s %-28s %-9d %.1f MiB\n%-50s %s\nratio rollplan/kubectl (median wall time): %.2f (goal: at most 1.0)",
			"command", "wall time (rounds; median)", "requests", "peak RSS",
			"kubectl rollplan preview deploy/web (all checks)", durations(pr.walls, p), len(pluginReqs), float64(pr.maxRSS)/1024,
			"kubectl get nodes,pods -A -o json", durations(kr.walls, k), len(kubectlReqs), float64(kr.maxRSS)/1024,
			"kubectl rollplan preview deploy/web --checks=none", durations(nw, n), ratio)
	}
	b.Logf("rollplan's requests: %s", listsOf(pluginReqs))
	b.Logf("kubectl's requests: %s", listsOf(kubectlReqs))
	// Every kind the checks read is one paginated LIST: a first page (no continue token) once.
	lists := firstPages(pluginReqs)
	for path, n := range lists {
		if n > 1 {
			b.Errorf("preview listed %s %d times: one paginated LIST per kind and scope is expected", path, n)
		}
	}
	for _, path := range []string{"/api/v1/nodes", "/api/v1/pods", "/api/v1/namespaces/" + ns + "/resourcequotas", "/api/v1/namespaces/" + ns + "/limitranges",
		"/apis/policy/v1/namespaces/" + ns + "/poddisruptionbudgets", "/apis/autoscaling/v2/namespaces/" + ns + "/horizontalpodautoscalers"} {
		if lists[path] != 1 {
			b.Errorf("preview listed %s %d times, want once (every check on)", path, lists[path])
		}
	}
}

// benchRequestsOf is the requests of the benchmark's pods: 100m cpu, 64Mi memory.
func benchRequestsOf() corev1.ResourceList {
	return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("64Mi")}
}

// benchNodes creates n kwok nodes bench-node-0.., waits until kwok has made them all Ready,
// lifts the not-ready taint admission puts on a new node (no node-lifecycle controller runs
// here) and deletes them when b ends. It returns their names.
func benchNodes(b *testing.B, client kubernetes.Interface, n int) []string {
	b.Helper()
	var names []string
	for i := range n {
		name := fmt.Sprintf("bench-node-%d", i)
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name,
			Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"},
			Labels:      map[string]string{"type": "kwok", "kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64"}}}
		if _, err := client.CoreV1().Nodes().Create(b.Context(), node, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		names = append(names, name)
	}
	b.Cleanup(func() {
		for _, name := range names {
			_ = client.CoreV1().Nodes().Delete(context.Background(), name, metav1.DeleteOptions{})
		}
	})
	deadline := time.Now().Add(2 * time.Minute)
	for pending := names; len(pending) > 0; {
		var rest []string
		for _, name := range pending {
			node, err := client.CoreV1().Nodes().Get(b.Context(), name, metav1.GetOptions{})
			if err != nil {
				b.Fatal(err)
			}
			if !nodeReady(node) {
				rest = append(rest, name)
				continue
			}
			patch := []byte(`{"spec":{"taints":null}}`)
			if _, err := client.CoreV1().Nodes().Patch(b.Context(), name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		if pending = rest; len(pending) > 0 {
			if time.Now().After(deadline) {
				b.Fatalf("%d of %d nodes not Ready after 2m (is kwok running?)", len(pending), n)
			}
			time.Sleep(500 * time.Millisecond)
		}
	}
	return names
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// createBoundPods creates n bare pods, pod-0.., spread over namespaces and bound round-robin
// to nodes (spec.nodeName: no scheduler), workers at a time.
func createBoundPods(b *testing.B, client kubernetes.Interface, namespaces, nodes []string, n, workers int) {
	b.Helper()
	jobs := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	for range workers {
		wg.Go(func() {
			for i := range jobs {
				p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("pod-%d", i), Labels: map[string]string{"app": "bench"}},
					Spec: corev1.PodSpec{NodeName: nodes[i%len(nodes)], Containers: []corev1.Container{{Name: "app", Image: "nginx:1.18",
						Resources: corev1.ResourceRequirements{Requests: benchRequestsOf()}}}}}
				if _, err := client.CoreV1().Pods(namespaces[i%len(namespaces)]).Create(b.Context(), p, metav1.CreateOptions{}); err != nil {
					mu.Lock()
					first = cmp.Or(first, err)
					mu.Unlock()
				}
			}
		})
	}
	for i := range n {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	if first != nil {
		b.Fatalf("create pods: %v", first)
	}
}

// waitRunning waits up to timeout until at least n pods of the cluster are Running (kwok's
// pod-ready stage) and returns how many are.
func waitRunning(b *testing.B, client kubernetes.Interface, n int, timeout time.Duration) int {
	b.Helper()
	deadline := time.Now().Add(timeout)
	for {
		list, err := client.CoreV1().Pods("").List(b.Context(), metav1.ListOptions{FieldSelector: "status.phase=Running", ResourceVersion: "0"})
		if err != nil {
			b.Fatal(err)
		}
		if len(list.Items) >= n {
			return len(list.Items)
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d of %d pods Running after %s", len(list.Items), n, timeout)
		}
		time.Sleep(2 * time.Second)
	}
}

// firstPages counts the LISTs of reqs ("GET PATH?QUERY") by path: a request without a
// continue token starts a LIST, one with it is a further page of the same LIST.
func firstPages(reqs []string) map[string]int {
	out := map[string]int{}
	for _, r := range reqs {
		path, query, _ := strings.Cut(strings.TrimPrefix(r, "GET "), "?")
		if v, err := url.ParseQuery(query); err == nil && v.Get("continue") == "" && strings.HasPrefix(r, "GET ") {
			out[path]++
		}
	}
	return out
}

// listsOf summarizes reqs as "PATH xN pages" per path, sorted, the pages being every request
// of that path.
func listsOf(reqs []string) string {
	pages := map[string]int{}
	for _, r := range reqs {
		verb, rest, _ := strings.Cut(r, " ")
		path, _, _ := strings.Cut(rest, "?")
		pages[verb+" "+path]++
	}
	var out []string
	for k, n := range pages {
		out = append(out, fmt.Sprintf("%s (%d page(s))", k, n))
	}
	sort.Strings(out)
	return fmt.Sprintf("%d requests: %s", len(reqs), strings.Join(out, "; "))
}
