package reloadcontroller

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/google/uuid"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// LeaderElectionConfig are the --leader-elect-* flags; the defaults are kube's
// (k8s.io/component-base/config/v1alpha1, RecommendedDefaultLeaderElectionConfiguration).
type LeaderElectionConfig struct {
	// LeaseDuration: how long non-leaders wait after the last renewal before taking over
	// (default 15s).
	LeaseDuration time.Duration
	// RenewDeadline: how long the leader retries renewing before it gives up leading
	// (default 10s).
	RenewDeadline time.Duration
	// RetryPeriod: the wait between attempts to acquire or renew (default 2s).
	RetryPeriod time.Duration
	// ResourceName and ResourceNamespace name the coordination.k8s.io Lease.
	ResourceName      string
	ResourceNamespace string
	// Identity of this process in the Lease (default: host name + "_" + a random UUID).
	Identity string
}

// Kube's leader election defaults and the Lease's default name.
const (
	DefaultLeaseDuration = 15 * time.Second
	DefaultRenewDeadline = 10 * time.Second
	DefaultRetryPeriod   = 2 * time.Second
	DefaultLeaseName     = "rollplan-reload"
)

// LeaderElection runs the controller's workers only while this process holds a Lease
// (client-go tools/leaderelection), so one of several replicas acts. The Lease is released
// when Run's ctx ends (ReleaseOnCancel), so a rolling update of the controller hands over at
// once.
type LeaderElection struct {
	elector *leaderelection.LeaderElector
	healthz *leaderelection.HealthzAdaptor
	work    func(context.Context) // set by run before the elector runs
}

// NewLeaderElection builds the elector on client's Lease. Errors: a missing ResourceName or
// ResourceNamespace, or durations client-go refuses (LeaseDuration <= RenewDeadline, or
// RenewDeadline <= RetryPeriod * 1.2).
func NewLeaderElection(client kubernetes.Interface, cfg LeaderElectionConfig) (*LeaderElection, error) {
	if cfg.ResourceName == "" || cfg.ResourceNamespace == "" {
		return nil, fmt.Errorf("leader election: --leader-elect-resource-name and --leader-elect-resource-namespace must not be empty")
	}
	id := cfg.Identity
	if id == "" {
		host, _ := os.Hostname()
		id = host + "_" + uuid.NewString()
	}
	le := &LeaderElection{healthz: leaderelection.NewLeaderHealthzAdaptor(20 * time.Second)}
	elector, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock: &resourcelock.LeaseLock{
			LeaseMeta:  metav1.ObjectMeta{Name: cfg.ResourceName, Namespace: cfg.ResourceNamespace},
			Client:     client.CoordinationV1(),
			LockConfig: resourcelock.ResourceLockConfig{Identity: id},
		},
		LeaseDuration:   cfg.LeaseDuration,
		RenewDeadline:   cfg.RenewDeadline,
		RetryPeriod:     cfg.RetryPeriod,
		ReleaseOnCancel: true,
		WatchDog:        le.healthz,
		Name:            cfg.ResourceName,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) { le.work(ctx) },
			OnStoppedLeading: func() {},
		},
	})
	if err != nil {
		return nil, fmt.Errorf("leader election: %w", err)
	}
	le.elector = elector
	return le, nil
}

// run campaigns for the Lease and runs work while leading. It returns nil when ctx ended,
// ErrLeaderLost when the Lease was lost while ctx was live.
func (le *LeaderElection) run(ctx context.Context, work func(context.Context)) error {
	le.work = work
	le.elector.Run(ctx)
	if ctx.Err() != nil {
		return nil
	}
	return ErrLeaderLost
}

// IsLeader reports whether this process holds the Lease.
func (le *LeaderElection) IsLeader() bool { return le != nil && le.elector.IsLeader() }

// Check is the /healthz check of the election: an error when this process was leading and
// has failed to renew for 20 s past the lease (client-go's HealthzAdaptor).
func (le *LeaderElection) Check() error {
	if le == nil {
		return nil
	}
	return le.healthz.Check(nil)
}
