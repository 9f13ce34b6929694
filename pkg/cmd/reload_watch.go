package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/kube"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
	"github.com/rollplan/kubectl-rollplan/pkg/reloadcontroller"
)

// ReloadWatchOptions are the flags of `kubectl rollplan reload --watch`, the watch mode
// (pkg/reloadcontroller); -n/-A, -l, --max-concurrent and --timeout are reload's.
type ReloadWatchOptions struct {
	// Watch runs the controller until interrupted instead of one pass.
	Watch bool
	// GracePeriod compacts a burst of changes into one restart (default 5s, XING's).
	GracePeriod time.Duration
	// LeaderElect runs the restarts in one of several replicas (a Lease).
	LeaderElect bool
	// LeaderElection are the --leader-elect-* flags, kube's defaults.
	LeaderElection reloadcontroller.LeaderElectionConfig
	// MetricsBindAddress serves /metrics, /healthz and /readyz ("" or "0": not served).
	MetricsBindAddress string
}

// addReloadWatchFlags registers --watch and the flags only the watch mode reads.
func addReloadWatchFlags(cmd *cobra.Command, w *ReloadWatchOptions) {
	fl := cmd.Flags()
	fl.BoolVarP(&w.Watch, "watch", "w", false, "Run as a controller until interrupted: restart opted-in Deployments (of -n, or every namespace with -A; -l narrows) when a ConfigMap or Secret their pods see changes.")
	fl.DurationVar(&w.GracePeriod, "grace-period", 5*time.Second, "With --watch: wait this long after a change before restarting, so a burst of changes gives one restart (0: at once).")
	fl.BoolVar(&w.LeaderElect, "leader-elect", false, "With --watch: restart only while holding a Lease, so that one of several replicas acts.")
	fl.DurationVar(&w.LeaderElection.LeaseDuration, "leader-elect-lease-duration", reloadcontroller.DefaultLeaseDuration, "With --leader-elect: how long non-leaders wait after the leader's last renewal before taking over.")
	fl.DurationVar(&w.LeaderElection.RenewDeadline, "leader-elect-renew-deadline", reloadcontroller.DefaultRenewDeadline, "With --leader-elect: how long the leader retries renewing before it stops leading (less than the lease duration).")
	fl.DurationVar(&w.LeaderElection.RetryPeriod, "leader-elect-retry-period", reloadcontroller.DefaultRetryPeriod, "With --leader-elect: the wait between attempts to acquire or renew the Lease.")
	fl.StringVar(&w.LeaderElection.ResourceName, "leader-elect-resource-name", reloadcontroller.DefaultLeaseName, "With --leader-elect: the name of the coordination.k8s.io Lease.")
	fl.StringVar(&w.LeaderElection.ResourceNamespace, "leader-elect-resource-namespace", "", "With --leader-elect: the namespace of the Lease (default: the namespace of -n or the context).")
	fl.StringVar(&w.MetricsBindAddress, "metrics-bind-address", "", "With --watch: serve Prometheus metrics (/metrics), /healthz and /readyz on this address, e.g. :8080 (default: not served).")
}

// validate checks the watch flags alone: watch-only flags without --watch, names with
// --watch, and the durations.
func (w *ReloadWatchOptions) validate(cmd *cobra.Command, names []string) error {
	if !w.Watch {
		for _, f := range []string{"grace-period", "leader-elect", "leader-elect-lease-duration", "leader-elect-renew-deadline",
			"leader-elect-retry-period", "leader-elect-resource-name", "leader-elect-resource-namespace", "metrics-bind-address"} {
			if cmd.Flags().Changed(f) {
				return fmt.Errorf("--%s applies to --watch only: add --watch, or drop it", f)
			}
		}
		return nil
	}
	switch {
	case len(names) > 0:
		return errors.New("--watch watches every opted-in Deployment of the namespace (-A: of all namespaces): drop the names, narrow with -l/--selector")
	case w.GracePeriod < 0:
		return fmt.Errorf("--grace-period=%s: must not be negative", w.GracePeriod)
	case w.LeaderElect && w.LeaderElection.LeaseDuration <= w.LeaderElection.RenewDeadline:
		return fmt.Errorf("--leader-elect-lease-duration (%s) must be longer than --leader-elect-renew-deadline (%s)", w.LeaderElection.LeaseDuration, w.LeaderElection.RenewDeadline)
	case w.LeaderElect && w.LeaderElection.RetryPeriod <= 0:
		return fmt.Errorf("--leader-elect-retry-period=%s: must be more than 0", w.LeaderElection.RetryPeriod)
	}
	return nil
}

// reloadWatchRun is what the watch mode needs from reload's options.
type reloadWatchRun struct {
	Client        kubernetes.Interface
	Namespace     string // -n (or the context's); "" with AllNamespaces
	AllNamespaces bool
	Selector      string
	MaxConcurrent int
	Timeout       time.Duration
	// FieldManager is --field-manager: the restart and adopt patches' (default
	// rollplan-reload).
	FieldManager string
}

// runReloadWatch runs the controller (pkg/reloadcontroller) until ctx ends or SIGINT or
// SIGTERM; restarts and refusals are printed on out, the start and errors on errOut.
// Errors: a bad selector, a metrics address that cannot be listened on, the Lease lost.
func runReloadWatch(ctx context.Context, w ReloadWatchOptions, r reloadWatchRun, out, errOut interface{ Write([]byte) (int, error) }) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	sel, err := labels.Parse(r.Selector)
	if err != nil {
		return fmt.Errorf("-l/--selector %q: %w", r.Selector, err)
	}
	ns := r.Namespace
	if r.AllNamespaces {
		ns = ""
	}
	rec := kube.NewRecorder(r.Client, func(msg string) { fmt.Fprintln(errOut, "warning: "+msg) })
	defer rec.Shutdown(5 * time.Second)
	c, err := reloadcontroller.New(r.Client, reloadcontroller.Config{
		Namespace: ns, Selector: sel, GracePeriod: w.GracePeriod, MaxConcurrent: r.MaxConcurrent,
		RolloutTimeout: r.Timeout, FieldManager: r.FieldManager, Report: reportOutcomes(out), Recorder: rec,
	})
	if err != nil {
		return err
	}
	var le *reloadcontroller.LeaderElection
	if w.LeaderElect {
		lec := w.LeaderElection
		if lec.ResourceNamespace == "" {
			lec.ResourceNamespace = r.Namespace
		}
		if le, err = reloadcontroller.NewLeaderElection(r.Client, lec); err != nil {
			return err
		}
	}
	if w.MetricsBindAddress != "" && w.MetricsBindAddress != "0" {
		addr, err := reloadcontroller.Serve(ctx, w.MetricsBindAddress, c, le)
		if err != nil {
			return err
		}
		fmt.Fprintf(errOut, "serving /metrics, /healthz and /readyz on %s\n", addr)
	}
	scope := "namespace " + r.Namespace
	if r.AllNamespaces {
		scope = "all namespaces"
	}
	fmt.Fprintf(errOut, "watching opted-in Deployments in %s (grace period %s, max concurrent %d, leader election %v)\n", scope, w.GracePeriod, r.MaxConcurrent, w.LeaderElect)
	if !w.LeaderElect {
		go pollKinds(ctx, r.Client, ns, r.Selector, r.Timeout, r.FieldManager, max(w.GracePeriod, 2*time.Second), out, errOut)
	}
	return c.Run(ctx, le)
}

// reportOutcomes prints each of the controller's outcomes as one line on out (the workers
// report concurrently: one line at a time).
func reportOutcomes(out io.Writer) func(reloadcontroller.Outcome) {
	var mu sync.Mutex
	return func(o reloadcontroller.Outcome) {
		mu.Lock()
		defer mu.Unlock()
		printer.ReloadOutcome(out, string(o.Type), o.Namespace, o.Name, o.Message)
	}
}
