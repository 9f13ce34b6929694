// Package cmd is the wiring of the kubectl rollplan commands: the root command (kubectl's
// connection flags, klog's -v, completion through completion.AttachCompletions), one file per
// verb (flags -> a typed config -> one call into pkg/pipeline, pkg/driverun or
// pkg/reloadoneshot -> a pkg/printer call -> an exit decision), and HandleError, which turns a
// command's error into kubectl's "error: ..." line and the exit code.
package cmd

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/klog/v2"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/pkg/completion"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
)

// Exit codes of kubectl-rollplan, part of the CLI's contract: pipeline.ExitOK ... ExitFailFast
// say when each is returned.
const (
	ExitOK       = pipeline.ExitOK
	ExitError    = pipeline.ExitError
	ExitStalled  = pipeline.ExitStalled
	ExitHeld     = pipeline.ExitHeld
	ExitTimedOut = pipeline.ExitTimedOut
	ExitFailFast = pipeline.ExitFailFast
)

// exitError is an error that sets the exit code (NewExitError). HandleError prints its message,
// when not empty, as "error: MSG" as it is (not through kubectl's StandardErrorMessage), and
// returns its code.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// NewExitError returns an error that makes the command exit with code; msg may be empty
// (nothing more is printed).
func NewExitError(code int, msg string) error { return &exitError{code: code, msg: msg} }

// exitDecision is the error of an exit decision (code, msg): nil for ExitOK, else NewExitError.
func exitDecision(code int, msg string) error {
	if code == ExitOK {
		return nil
	}
	return NewExitError(code, msg)
}

// HandleError prints err the way kubectl does (printer.PrintError: "error: ...", or the API
// server's message) and returns the process exit code.
func HandleError(w io.Writer, err error) int {
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintln(w, "error: "+ee.msg)
		}
		return ee.code
	}
	printer.PrintError(w, err)
	return ExitError
}

// NewCmdRollplan returns the root command, "kubectl rollplan", with kubectl's connection flags
// (--kubeconfig, --context, -n, --as, --request-timeout ...) and klog's -v.
func NewCmdRollplan(streams genericiooptions.IOStreams) *cobra.Command {
	configFlags := genericclioptions.NewConfigFlags(true)
	cmd := &cobra.Command{
		Use:   "kubectl-rollplan",
		Short: "Preview, and walk through, exactly what a Deployment rollout will do",
		Long: `Preview, and walk through, exactly what a Deployment rollout will do.

rollplan reproduces the Kubernetes v1.36.3 Deployment controller on the client: before you
change a Deployment it shows every ReplicaSet scale-up and scale-down the controller will make,
in order, and how the rollout ends.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Annotations: map[string]string{
			cobra.CommandDisplayNameAnnotation: "kubectl rollplan",
		},
	}
	flags := cmd.PersistentFlags()
	configFlags.AddFlags(flags)
	klogFlags := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(klogFlags)
	for _, name := range []string{"v", "vmodule"} {
		flags.AddGoFlag(klogFlags.Lookup(name))
	}

	f := cmdutil.NewFactory(configFlags)
	cmd.AddCommand(NewCmdVersion(streams))
	kc := &pipeline.Kubeconfig{Flags: configFlags, Tune: pipeline.FleetTune}
	cmd.AddCommand(newCmdPreview(f, kc, streams))
	cmd.AddCommand(newCmdHistory(f, kc, streams))
	cmd.AddCommand(NewCmdUndo(f, streams))
	cmd.AddCommand(NewCmdPause(f, streams))
	cmd.AddCommand(NewCmdResume(f, streams))
	cmd.AddCommand(NewCmdRestart(f, streams))
	cmd.AddCommand(newCmdReload(f, kc, streams))
	cmd.AddCommand(newCmdDrive(f, kc, streams))
	cmd.AddCommand(NewCmdAbort(f, streams))
	cmd.AddCommand(NewCmdGuard(f, streams))
	cmd.AddCommand(newCmdStatus(f, kc, streams))
	cmd.AddCommand(NewCmdCompletion(streams))
	guardOneCluster(cmd, kc)
	completion.AttachCompletions(cmd, f) // after every AddCommand: Deployment names, revisions, -n/--context values
	return cmd
}
