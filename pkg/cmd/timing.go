package cmd

import (
	"github.com/spf13/cobra"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
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

// Validate checks the flags against --readiness and --state-file (pure; pipeline.Timing.Validate).
func (f *TimingFlags) Validate(readiness, stateFile string) error {
	return pipeline.Timing(*f).Validate(readiness, stateFile)
}
