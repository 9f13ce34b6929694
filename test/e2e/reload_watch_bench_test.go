//go:build e2e

package e2e

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// BenchmarkReloadWatchLatency measures, on the local cluster, the change-to-restart-patch
// latency of `kubectl rollplan reload --watch`: from just before the ConfigMap update is sent
// to the Deployment watch event (in this process) carrying the restart's new
// rollplan.dev/config-checksums annotation. One watcher process (the plugin binary of
// _output/bin: `make build` for figures without the race detector) and one opted-in
// 2-replica Deployment; each sample waits for the previous restart's rollout to complete.
// Sub-benchmarks: --grace-period 0 (20 samples) and 5s, XING's default grace period (6
// samples; XING's controller then also waits up to one 500 ms check period). Reported: the
// median and p95 in milliseconds.
//
// Run: make bench-reload (go test -tags e2e -run '^$' -bench ReloadWatchLatency -benchtime 1x ./test/e2e/).
func BenchmarkReloadWatchLatency(b *testing.B) {
	for _, tc := range []struct {
		name    string
		grace   string
		samples int
	}{{"grace-0", "0", 20}, {"grace-5s", "5s", 6}} {
		b.Run(tc.name, func(b *testing.B) {
			for range b.N {
				lat := reloadLatencies(b, tc.grace, tc.samples)
				slices.Sort(lat)
				ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
				b.ReportMetric(ms(lat[len(lat)/2]), "p50-ms")
				b.ReportMetric(ms(lat[(len(lat)*95+99)/100-1]), "p95-ms")
				b.ReportMetric(float64(len(lat)), "samples")
			}
		})
	}
}

func reloadLatencies(b *testing.B, grace string, samples int) []time.Duration {
	b.StopTimer()
	f := newReloadFixture(b)
	f.deployment("web", "a", true)
	w := startWatcher(b, f.c, "-n", f.ns, "--grace-period", grace)
	f.eventually("web adopted", time.Minute, func() bool { return adopted(f.get("web")) }, w)
	seen := watchChecksums(b, f)
	var lat []time.Duration
	for i := range samples {
		prev := restartedWith(f.get("web"))
		began := time.Now()
		f.setKey("a", strconv.Itoa(i+2))
		at := seen.waitChange(b, prev, 2*time.Minute)
		lat = append(lat, at.Sub(began))
		f.c.WaitForRollout(b, f.ns, "web", time.Minute)
		time.Sleep(200 * time.Millisecond) // the watcher's pacing sees the rollout complete
	}
	w.stop(b, syscall.SIGINT)
	return lat
}

// checksumWatch records the time each new rollplan.dev/config-checksums value of Deployment
// web arrives on a watch.
type checksumWatch struct {
	mu    sync.Mutex
	cond  *sync.Cond
	value string
	at    time.Time
}

func watchChecksums(b *testing.B, f *reloadFixture) *checksumWatch {
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	wi, err := f.c.Client.AppsV1().Deployments(f.ns).Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=web"})
	if err != nil {
		b.Fatal(err)
	}
	cw := &checksumWatch{}
	cw.cond = sync.NewCond(&cw.mu)
	go func() {
		for ev := range wi.ResultChan() {
			d, ok := ev.Object.(*appsv1.Deployment)
			if !ok || ev.Type == watch.Error {
				continue
			}
			now := time.Now()
			cw.mu.Lock()
			if v := restartedWith(d); v != cw.value {
				cw.value, cw.at = v, now
				cw.cond.Broadcast()
			}
			cw.mu.Unlock()
		}
	}()
	return cw
}

// waitChange waits until the recorded value differs from prev and returns when it arrived.
func (cw *checksumWatch) waitChange(b *testing.B, prev string, timeout time.Duration) time.Time {
	deadline := time.AfterFunc(timeout, func() { cw.mu.Lock(); cw.cond.Broadcast(); cw.mu.Unlock() })
	defer deadline.Stop()
	start := time.Now()
	cw.mu.Lock()
	defer cw.mu.Unlock()
	for cw.value == prev || cw.value == "" {
		if time.Since(start) > timeout {
			b.Fatalf("no restart within %v", timeout)
		}
		cw.cond.Wait()
	}
	return cw.at
}
