package reloadcontroller

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/kube"
)

// WatchConfig is `kubectl rollplan reload --watch` as its flags give it (pkg/cmd fills it).
type WatchConfig struct {
	// Namespace is -n (or the context's); with AllNamespaces (-A) every namespace is watched
	// and Namespace is only the Lease's default namespace.
	Namespace     string
	AllNamespaces bool
	// Selector is -l ("" every object; only opted-in ones are acted on).
	Selector string
	// GracePeriod, MaxConcurrent, Timeout and FieldManager are Config's GracePeriod,
	// MaxConcurrent, RolloutTimeout and FieldManager.
	GracePeriod   time.Duration
	MaxConcurrent int
	Timeout       time.Duration
	FieldManager  string
	// LeaderElect runs the workers only while holding the Lease of LeaderElection (its
	// ResourceNamespace "" is Namespace).
	LeaderElect    bool
	LeaderElection LeaderElectionConfig
	// MetricsBindAddress serves /metrics, /healthz and /readyz ("" or "0": not served).
	MetricsBindAddress string
	// Report receives each restart, adoption and refusal (the command renders them; the
	// workers call it one at a time). nil: none is reported but through Events and metrics.
	Report func(Outcome)
}

// RunWatch runs the controller until ctx ends or SIGINT or SIGTERM (nil error): restarts,
// adoptions and refusals of Deployments, StatefulSets and DaemonSets go to w.Report, one
// call at a time; the start line, the metrics address and warnings are written on errOut. Errors: a bad selector, a metrics address that cannot be listened on,
// the caches not synced, the Lease lost (ErrLeaderLost).
func RunWatch(ctx context.Context, client kubernetes.Interface, w WatchConfig, errOut io.Writer) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	sel, err := labels.Parse(w.Selector)
	if err != nil {
		return fmt.Errorf("-l/--selector %q: %w", w.Selector, err)
	}
	ns := w.Namespace
	if w.AllNamespaces {
		ns = ""
	}
	warn := func(msg string) { fmt.Fprintln(errOut, "warning: "+msg) }
	rec := kube.NewRecorder(client, warn)
	defer rec.Shutdown(5 * time.Second)
	c, err := New(client, Config{
		Namespace: ns, Selector: sel, GracePeriod: w.GracePeriod, MaxConcurrent: w.MaxConcurrent,
		RolloutTimeout: w.Timeout, FieldManager: w.FieldManager, Report: serialized(w.Report), Recorder: rec, Warn: warn,
	})
	if err != nil {
		return err
	}
	var le *LeaderElection
	if w.LeaderElect {
		lec := w.LeaderElection
		if lec.ResourceNamespace == "" {
			lec.ResourceNamespace = w.Namespace
		}
		if le, err = NewLeaderElection(client, lec); err != nil {
			return err
		}
	}
	if w.MetricsBindAddress != "" && w.MetricsBindAddress != "0" {
		addr, err := Serve(ctx, w.MetricsBindAddress, c, le)
		if err != nil {
			return err
		}
		fmt.Fprintf(errOut, "serving /metrics, /healthz and /readyz on %s\n", addr)
	}
	scope := "namespace " + w.Namespace
	if w.AllNamespaces {
		scope = "all namespaces"
	}
	fmt.Fprintf(errOut, "watching opted-in Deployments, StatefulSets and DaemonSets in %s (grace period %s, max concurrent %d, leader election %v)\n", scope, w.GracePeriod, w.MaxConcurrent, w.LeaderElect)
	return c.Run(ctx, le)
}

// serialized calls report with one outcome at a time (the workers report concurrently);
// nil reports nothing.
func serialized(report func(Outcome)) func(Outcome) {
	if report == nil {
		return func(Outcome) {}
	}
	var mu sync.Mutex
	return func(o Outcome) {
		mu.Lock()
		defer mu.Unlock()
		report(o)
	}
}
