//go:build e2e

package e2e

import (
	"cmp"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// BenchmarkContextsPreview (make bench-contexts) measures `kubectl rollplan preview -A` with
// no change across CONTEXTS_N (default 3) contexts, each a bare API server
// (framework.SharedAPIServer) holding CONTEXTS_DEPLOYMENTS (default 500) Deployments in one
// namespace, settled (one ReplicaSet each, written by hand: no controller runs there), beside
// the same preview run once per context in sequence (--context c1; --context c2; ..., from
// one shell): CONTEXTS_ROUNDS (default 5) rounds, each running the two one after the other.
// Reported: the median wall times and their ratio (goal: at most 0.5 for 3 contexts), the
// requests each context got (client-go's log at -v=6, one extra run: 2 paginated LISTs
// expected, Deployments and ReplicaSets) and the peak resident memory (framework.Measure).
//
// The servers are on loopback, on the same 2 cores as the plugin: a preview there is bound by
// CPU, not by the network. CONTEXTS_LATENCY (a Go duration, default 0) puts a proxy in front
// of each server that delivers every chunk of bytes that long after it was read, each way
// (round trip twice that), as a cluster in another region would.
func BenchmarkContextsPreview(b *testing.B) {
	n, deployments, rounds := envInt("CONTEXTS_N", 3), envInt("CONTEXTS_DEPLOYMENTS", 500), envInt("CONTEXTS_ROUNDS", 5)
	var latency time.Duration
	if v := os.Getenv("CONTEXTS_LATENCY"); v != "" {
		var err error
		if latency, err = time.ParseDuration(v); err != nil {
			b.Fatalf("CONTEXTS_LATENCY=%s: %v", v, err)
		}
	}
	ns := "bench-contexts"
	servers := make([]*framework.APIServer, n)
	var names []string
	var contexts []framework.KubeContext
	for i := range n {
		servers[i] = framework.SharedAPIServer(b, fmt.Sprintf("bench-%d", i+1))
		name := fmt.Sprintf("c%d", i+1)
		names = append(names, name)
		contexts = append(contexts, framework.KubeContext{Name: name, Kubeconfig: servers[i].Kubeconfig})
		if latency > 0 {
			contexts[i].Server = "https://" + latencyProxy(b, servers[i].Config.Host, latency)
		}
	}
	began := time.Now()
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Go(func() { createSettledFleet(b, s, ns, deployments, 32) })
	}
	wg.Wait()
	if b.Failed() {
		b.FailNow()
	}
	b.Logf("%d API servers, each with %d settled Deployments in %s: created in %s; latency each way %s", n, deployments, ns, time.Since(began).Round(time.Millisecond), latency)

	kc := filepath.Join(b.TempDir(), "kubeconfig")
	if err := framework.WriteKubeconfig(kc, contexts...); err != nil {
		b.Fatal(err)
	}
	env := kubeconfigEnv(kc)
	plugin := filepath.Join(servers[0].BinDir, "kubectl-rollplan")
	// --checks=none: the benchmark compares the Deployment reads (2 LISTs per context); the
	// feasibility checks' reads are their own (one LIST per kind).
	across := []string{plugin, "preview", "-A", "--checks=none", "--contexts", strings.Join(names, ",")}
	var seq []string
	for _, name := range names {
		seq = append(seq, fmt.Sprintf("%q preview -A --checks=none --context %s >/dev/null", plugin, name))
	}
	sequence := []string{"/bin/sh", "-ec", strings.Join(seq, "; ")}

	perContext, stdout := contextRequests(b, env, across, contexts)
	for _, name := range names {
		rows := 0
		for _, line := range strings.Split(stdout, "\n") {
			if f := strings.Fields(line); len(f) > 2 && f[0] == name && f[1] == ns {
				rows++
			}
		}
		if rows != deployments {
			b.Errorf("context %s: %d rows in the summary, want %d (one per Deployment)", name, rows, deployments)
		}
	}
	for range b.N {
		ar, sr := benchRounds(b, env, rounds, across, sequence)
		a, s := median(ar.walls), median(sr.walls)
		ratio := a.Seconds() / s.Seconds()
		b.ReportMetric(ratio, "wall-ratio")
		b.ReportMetric(a.Seconds(), "across-s")
		b.ReportMetric(s.Seconds(), "sequence-s")
		b.ReportMetric(float64(ar.maxRSS)/1024, "across-maxrss-MiB")
		b.Logf("\n%-52s %-26s %s\n%-52s %-26s %.1f MiB\n%-52s %-26s %.1f MiB\nratio across/sequence (median wall time): %.2f (goal: at most 0.5)",
			"command", "wall time (rounds; median)", "peak RSS",
			fmt.Sprintf("preview -A --contexts %s", strings.Join(names, ",")), durations(ar.walls, a), float64(ar.maxRSS)/1024,
			fmt.Sprintf("preview -A --context cN, %d in sequence", n), durations(sr.walls, s), float64(sr.maxRSS)/1024, ratio)
	}
	for _, name := range names {
		reqs := perContext[name]
		b.Logf("context %s: %d requests: %s", name, len(reqs), strings.Join(reqs, "; "))
		lists := 0
		for _, r := range reqs {
			if strings.HasPrefix(r, "GET /apis/apps/v1/deployments?") || strings.HasPrefix(r, "GET /apis/apps/v1/replicasets?") {
				lists++
			} else {
				b.Errorf("context %s: preview -A sent %s: only the paginated LISTs of Deployments and ReplicaSets are expected", name, r)
			}
		}
		if lists < 2 {
			b.Errorf("context %s: %d LISTs, want at least 2 (Deployments and ReplicaSets)", name, lists)
		}
	}
}

// createSettledFleet writes n settled Deployments bench-0.. at 0 replicas into ns of s
// (framework.CreateSettledDeployment), workers at a time, through a client without a
// client-side rate limit.
func createSettledFleet(b *testing.B, s *framework.APIServer, ns string, n, workers int) {
	cfg := rest.CopyConfig(s.Config)
	cfg.QPS, cfg.Burst = -1, 0
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		b.Error(err)
		return
	}
	if err := createNamespace(b, client, ns); err != nil {
		b.Errorf("API server %s: %v", s.Name, err)
		return
	}
	jobs := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	for range workers {
		wg.Go(func() {
			for i := range jobs {
				d := framework.NewDeployment(fmt.Sprintf("bench-%d", i)).Replicas(0).Build()
				if _, err := framework.CreateSettledDeployment(b.Context(), client, ns, d); err != nil {
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
		b.Errorf("API server %s: %v", s.Name, first)
	}
}

// createNamespace creates ns through client (no ServiceAccount wait: nothing creates one on
// a bare API server, and no pod is made there).
func createNamespace(b *testing.B, client kubernetes.Interface, ns string) error {
	b.Helper()
	obj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}
	_, err := client.CoreV1().Namespaces().Create(b.Context(), obj, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("create namespace %s: %w", ns, err)
	}
	return nil
}

// kubeconfigEnv is this process's environment with KUBECONFIG=kc.
func kubeconfigEnv(kc string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "KUBECONFIG=") {
			env = append(env, kv)
		}
	}
	return append(env, "KUBECONFIG="+kc)
}

// hostRequest matches a request in client-go's log at -v=6 (requestLine) with its host.
var hostRequest = regexp.MustCompile(`(?:^|\s|verb=")(GET|POST|PUT|PATCH|DELETE)"?\s+(?:url=")?(https?://[^/\s"]+)(/[^\s"]*)`)

// contextRequests runs argv once with -v=6 and returns the requests it logged ("VERB PATH")
// by context, a request's context being the one whose server has its host, and its stdout.
func contextRequests(b *testing.B, env, argv []string, contexts []framework.KubeContext) (map[string][]string, string) {
	b.Helper()
	byHost := map[string]string{}
	for _, kc := range contexts {
		server := kc.Server
		if server == "" {
			cfg, err := clientcmd.BuildConfigFromFlags("", kc.Kubeconfig)
			if err != nil {
				b.Fatal(err)
			}
			server = cfg.Host
		}
		u, err := url.Parse(server)
		if err != nil {
			b.Fatal(err)
		}
		byHost[u.Host] = kc.Name
	}
	cmd := exec.Command(argv[0], append(argv[1:len(argv):len(argv)], "-v=6")...)
	cmd.Env = env
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		b.Fatalf("%s -v=6: %v\n%s", strings.Join(argv, " "), err, lastLines(stderr.String(), 20))
	}
	out := map[string][]string{}
	for _, line := range strings.Split(stderr.String(), "\n") {
		m := hostRequest.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		u, err := url.Parse(m[2])
		if err != nil {
			b.Fatal(err)
		}
		name, ok := byHost[u.Host]
		if !ok {
			b.Errorf("a request to %s, no context's server: %s", u.Host, line)
			continue
		}
		out[name] = append(out[name], m[1]+" "+m[3])
	}
	return out, stdout.String()
}

// latencyProxy listens on a loopback port and forwards each connection to the host of
// server (https://HOST:PORT), every chunk of bytes each way delivered delay after it was
// read: a one-way latency of delay, the throughput unbounded. It returns its address and
// closes when b ends.
func latencyProxy(b *testing.B, server string, delay time.Duration) string {
	b.Helper()
	u, err := url.Parse(server)
	if err != nil {
		b.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				up, err := net.Dial("tcp", u.Host)
				if err != nil {
					_ = c.Close()
					return
				}
				go delayCopy(up, c, delay)
				delayCopy(c, up, delay)
			}()
		}
	}()
	return l.Addr().String()
}

// delayCopy copies src to dst, each chunk written delay after it was read, then closes both.
func delayCopy(dst, src net.Conn, delay time.Duration) {
	type chunk struct {
		at   time.Time
		data []byte
	}
	chunks := make(chan chunk, 4096)
	go func() {
		defer close(chunks)
		for {
			buf := make([]byte, 32<<10)
			n, err := src.Read(buf)
			if n > 0 {
				chunks <- chunk{time.Now().Add(delay), buf[:n]}
			}
			if err != nil {
				return
			}
		}
	}()
	for c := range chunks {
		time.Sleep(time.Until(c.at))
		if _, err := dst.Write(c.data); err != nil {
			break
		}
	}
	_, _ = dst.Close(), src.Close()
	for range chunks { // the reader ends on the closed src
	}
}
