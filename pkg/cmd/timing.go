package cmd

import (
	"github.com/spf13/cobra"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
)

// addTimingFlags registers the flags of the timed model (pipeline.Timing: its Validate checks
// them against --readiness and --state-file) on cmd: --pod-ready-after and --sync-latency.
func addTimingFlags(cmd *cobra.Command, f *pipeline.Timing) {
	cmd.Flags().StringVar(&f.PodReadyAfter, "pod-ready-after", "", "With --readiness timed: how long a pod takes from creation to Ready, a duration (2s) or a range MIN..MAX (1s..4s) spread over pods. Default: measured on the workload's own pods (Deployment, StatefulSet or DaemonSet; one extra LIST of pods); required with --state-file.")
	cmd.Flags().StringVar(&f.SyncLatency, "sync-latency", "", "With the timed model: the controllers' reaction time per write (pod creation, status updates, the next sync), a duration (500ms). Default: fitted to the live Deployment's last rollout (the time it took beside the model's replay of it); 0 with --state-file.")
}
