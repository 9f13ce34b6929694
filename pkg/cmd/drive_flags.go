package cmd

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubectl/pkg/util/term"
)

// Defaults and checks drive and abort share, kept in one place.
const (
	// defaultLeaseDuration is --lease-duration's default: the lease is renewed every third
	// of it, and another driver may take over once it lapses.
	defaultLeaseDuration = 30 * time.Second
	// minLeaseDuration is the shortest --lease-duration accepted.
	minLeaseDuration = 3 * time.Second
)

// validateLeaseDuration checks --lease-duration (3s or more).
func validateLeaseDuration(d time.Duration) error {
	if d < minLeaseDuration {
		return fmt.Errorf("--lease-duration=%s: must be 3s or more", d)
	}
	return nil
}

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

// parseDryRun maps a --dry-run value to kubectl's DryRunStrategy: "none", "client" or
// "server". Unlike cmdutil.GetDryRunStrategy it takes no deprecated form (true, false, a bare
// --dry-run with a deprecation warning): drive documents a bare --dry-run as client and has
// always refused the rest.
//
// Errors: any other value (`--dry-run=maybe: use "none", "client" or "server"`).
func parseDryRun(v string) (cmdutil.DryRunStrategy, error) {
	switch v {
	case "none":
		return cmdutil.DryRunNone, nil
	case "client":
		return cmdutil.DryRunClient, nil
	case "server":
		return cmdutil.DryRunServer, nil
	}
	return cmdutil.DryRunNone, fmt.Errorf(`--dry-run=%s: use "none", "client" or "server"`, v)
}

// addDriveCheckFlags registers preview's --checks and --fail-on-stall on drive.
func addDriveCheckFlags(cmd *cobra.Command, o *DriveOptions) {
	fl := cmd.Flags()
	fl.StringVar(&o.Checks, "checks", o.Checks, "Feasibility checks run on the plan before the takeover: a comma-separated list of quota, capacity, pdb, hpa, or all, or none.")
	fl.BoolVar(&o.FailOnStall, "fail-on-stall", false, fmt.Sprintf("Exit with code %d, before any write, when the checks predict the plan stalls.", ExitStalled))
}
