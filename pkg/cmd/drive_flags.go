package cmd

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubectl/pkg/util/term"
)

// defaultLeaseDuration is --lease-duration's default (drive, abort, reload): the lease is
// renewed every third of it, and another driver may take over once it lapses.
const defaultLeaseDuration = 30 * time.Second

// stdTerminal returns whether streams' In and ErrOut are both terminals: drive and abort
// then prompt before each step and draw a live progress line.
func stdTerminal(streams genericiooptions.IOStreams) func() bool {
	return func() bool {
		t := term.TTY{In: streams.In, Out: streams.ErrOut}
		return t.IsTerminalIn() && t.IsTerminalOut()
	}
}

// addDriveDryRunFlag registers kubectl's --dry-run (cmdutil.AddDryRunFlag: default "none")
// with drive's help, a bare --dry-run meaning "client".
func addDriveDryRunFlag(cmd *cobra.Command) {
	cmdutil.AddDryRunFlag(cmd)
	fl := cmd.Flags().Lookup("dry-run")
	fl.Usage = `"client": print the plan, and where it differs from the controller's, and change nothing; "server": also send the takeover write with dryRun=All.`
	fl.NoOptDefVal = "client"
}

// addDriveCheckFlags registers preview's --checks and --fail-on-stall on drive.
func addDriveCheckFlags(cmd *cobra.Command, o *DriveOptions) {
	fl := cmd.Flags()
	fl.StringVar(&o.Checks, "checks", o.Checks, "Feasibility checks run on the plan before the takeover: a comma-separated list of quota, capacity, pdb, hpa, or all, or none.")
	fl.BoolVar(&o.FailOnStall, "fail-on-stall", false, fmt.Sprintf("Exit with code %d, before any write, when the checks predict the plan stalls.", ExitStalled))
}
