package reloadcontroller

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
)

// WatchFlags are the flags of `kubectl rollplan reload --watch`, the watch mode, as
// genericclioptions' flag structs are: AddFlags registers them, Validate checks them, Config
// turns them into RunWatch's WatchConfig; -n/-A, -l, --max-concurrent and --timeout are
// reload's own.
type WatchFlags struct {
	// Watch runs the controller until interrupted instead of one pass.
	Watch bool
	// GracePeriod compacts a burst of changes into one restart (default 5s, XING's).
	GracePeriod time.Duration
	// LeaderElect runs the restarts in one of several replicas (a Lease).
	LeaderElect bool
	// LeaderElection are the --leader-elect-* flags, kube's defaults.
	LeaderElection LeaderElectionConfig
	// MetricsBindAddress serves /metrics, /healthz and /readyz ("" or "0": not served).
	MetricsBindAddress string
}

// AddFlags registers --watch and the flags only the watch mode reads.
func (w *WatchFlags) AddFlags(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.BoolVarP(&w.Watch, "watch", "w", false, "Run as a controller until interrupted: restart opted-in Deployments, StatefulSets and DaemonSets (of -n, or every namespace with -A; -l narrows) when a ConfigMap or Secret their pods see changes.")
	fl.DurationVar(&w.GracePeriod, "grace-period", 5*time.Second, "With --watch: wait this long after a change before restarting, so a burst of changes gives one restart (0: at once).")
	fl.BoolVar(&w.LeaderElect, "leader-elect", false, "With --watch: restart only while holding a Lease, so that one of several replicas acts.")
	fl.DurationVar(&w.LeaderElection.LeaseDuration, "leader-elect-lease-duration", DefaultLeaseDuration, "With --leader-elect: how long non-leaders wait after the leader's last renewal before taking over.")
	fl.DurationVar(&w.LeaderElection.RenewDeadline, "leader-elect-renew-deadline", DefaultRenewDeadline, "With --leader-elect: how long the leader retries renewing before it stops leading (less than the lease duration).")
	fl.DurationVar(&w.LeaderElection.RetryPeriod, "leader-elect-retry-period", DefaultRetryPeriod, "With --leader-elect: the wait between attempts to acquire or renew the Lease.")
	fl.StringVar(&w.LeaderElection.ResourceName, "leader-elect-resource-name", DefaultLeaseName, "With --leader-elect: the name of the coordination.k8s.io Lease.")
	fl.StringVar(&w.LeaderElection.ResourceNamespace, "leader-elect-resource-namespace", "", "With --leader-elect: the namespace of the Lease (default: the namespace of -n or the context).")
	fl.StringVar(&w.MetricsBindAddress, "metrics-bind-address", "", "With --watch: serve Prometheus metrics (/metrics), /healthz and /readyz on this address, e.g. :8080 (default: not served).")
}

// Validate checks the watch flags alone: watch-only flags without --watch, names with
// --watch, and the durations. Errors are one line naming the flag.
func (w *WatchFlags) Validate(cmd *cobra.Command, names []string) error {
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

// Config is RunWatch's WatchConfig of these flags and reload's: base carries -n/-A, -l,
// --max-concurrent, --timeout and --field-manager; the watch flags fill the rest.
func (w *WatchFlags) Config(base WatchConfig) WatchConfig {
	base.GracePeriod = w.GracePeriod
	base.LeaderElect, base.LeaderElection = w.LeaderElect, w.LeaderElection
	base.MetricsBindAddress = w.MetricsBindAddress
	return base
}
