package reloadcontroller

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/collectors"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
)

// Serve serves /metrics (c's Metrics, with Go and process collectors), /healthz (ok while
// the process runs and, with le, the Lease is renewed in time) and /readyz (ok once the
// informers' caches synced) on addr until ctx ends. It returns the listener's address at
// once (addr ":0" picks a port) and serves in the background. Errors: addr cannot be
// listened on.
func Serve(ctx context.Context, addr string, c *Controller, le *LeaderElection) (net.Addr, error) {
	reg := c.metrics.Registry()
	_ = reg.Register(collectors.NewGoCollector())
	_ = reg.Register(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	mux := http.NewServeMux()
	mux.Handle("/metrics", c.metrics.Handler())
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		if err := le.Check(); err != nil {
			http.Error(w, "leader election: "+err.Error(), http.StatusInternalServerError)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if !c.Synced() {
			http.Error(w, "informers not synced", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics-bind-address %s: %w", addr, err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shut)
	}()
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			utilruntime.HandleError(fmt.Errorf("metrics server: %w", err))
		}
	}()
	return ln.Addr(), nil
}
