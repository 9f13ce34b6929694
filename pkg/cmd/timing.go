package cmd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/estimate"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/status"
)

// TimingFlags are the flags of the timed model (--readiness timed): how long pods take to
// become Ready.
type TimingFlags struct {
	// PodReadyAfter is --pod-ready-after: DURATION or MIN..MAX; empty measures the live
	// Deployment's pods.
	PodReadyAfter string
	// SyncLatency is --sync-latency: a duration; empty fits it to the live Deployment's last
	// rollout (0 with --state-file).
	SyncLatency string
}

// AddFlags registers --pod-ready-after and --sync-latency on cmd.
func (f *TimingFlags) AddFlags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.PodReadyAfter, "pod-ready-after", "", "With --readiness timed: how long a pod takes from creation to Ready, a duration (2s) or a range MIN..MAX (1s..4s) spread over pods. Default: measured on the Deployment's own pods (one extra LIST of pods); required with --state-file.")
	addSyncLatencyFlag(cmd, &f.SyncLatency)
}

// addSyncLatencyFlag registers --sync-latency (preview --readiness timed, status).
func addSyncLatencyFlag(cmd *cobra.Command, p *string) {
	cmd.Flags().StringVar(p, "sync-latency", "", "With the timed model: the controllers' reaction time per write (pod creation, status updates, the next sync), a duration (500ms). Default: fitted to the live Deployment's last rollout (the time it took beside the model's replay of it); 0 with --state-file.")
}

// Validate checks the flags against --readiness and --state-file (pure).
func (f *TimingFlags) Validate(readiness, stateFile string) error {
	timed := readiness == string(planner.ReadinessTimed)
	switch {
	case f.PodReadyAfter != "" && !timed:
		return fmt.Errorf("--pod-ready-after applies to --readiness timed only; add --readiness timed")
	case f.SyncLatency != "" && !timed:
		return fmt.Errorf("--sync-latency applies to --readiness timed only; add --readiness timed")
	}
	if f.SyncLatency != "" {
		if _, err := estimate.ParseSyncLatency(f.SyncLatency); err != nil {
			return err
		}
	}
	switch {
	case f.PodReadyAfter != "":
		_, err := estimate.ParseReadyAfter(f.PodReadyAfter)
		return err
	case timed && stateFile != "":
		return fmt.Errorf("--readiness timed with --state-file needs --pod-ready-after DURATION (or MIN..MAX): a state file has no pods to measure")
	}
	return nil
}

// timing resolves the timed model for state: nil, nil unless readiness is timed; the flag's
// estimate; or one LIST of the live Deployment's pods, measured (estimate.FromPods over its
// current and previous ReplicaSets) with the Ready times of its pods not yet available
// (estimate.Pending at now). The sync latency is the flag's, or, for a live state, fitted to
// its last rollout (status.SyncLatency); a state file without the flag has none.
func (f *TimingFlags) timing(ctx context.Context, readiness string, client func() (kubernetes.Interface, error), state *cluster.State, live bool, now time.Time) (*estimate.Estimate, *planner.Timing, error) {
	if readiness != string(planner.ReadinessTimed) {
		return nil, nil, nil
	}
	if f.PodReadyAfter != "" {
		e, err := estimate.ParseReadyAfter(f.PodReadyAfter)
		if err != nil {
			return nil, nil, err
		}
		if e.Latency, err = f.syncLatency(state, live, e); err != nil {
			return nil, nil, err
		}
		return &e, e.Timing(), nil
	}
	cs, err := client()
	if err != nil {
		return nil, nil, err
	}
	d := state.Deployment
	pods, err := cluster.ListPods(ctx, cs, d)
	if err != nil {
		return nil, nil, err
	}
	e, err := estimate.FromPods(pods, estimate.SampledReplicaSets(state.ReplicaSets))
	if errors.Is(err, estimate.ErrNoSamples) {
		return nil, nil, fmt.Errorf("--readiness timed: deployment %s/%s: %w: give --pod-ready-after DURATION", d.Namespace, d.Name, err)
	}
	if err != nil {
		return nil, nil, err
	}
	if e.Latency, err = f.syncLatency(state, live, e); err != nil {
		return nil, nil, err
	}
	tm := e.Timing()
	tm.Pending = estimate.Pending(pods, state.ReplicaSets, e, d.Spec.MinReadySeconds, now)
	return &e, tm, nil
}

// syncLatency returns --sync-latency's figure, or for a live state the one fitted to its
// last rollout with pod readiness e (status.SyncLatency), or none (with why).
func (f *TimingFlags) syncLatency(state *cluster.State, live bool, e estimate.Estimate) (estimate.Latency, error) {
	if f.SyncLatency != "" {
		return estimate.ParseSyncLatency(f.SyncLatency)
	}
	if !live {
		return estimate.Latency{Why: "a state file has no rollout to measure"}, nil
	}
	return status.SyncLatency(state.Deployment, state.ReplicaSets, e), nil
}
