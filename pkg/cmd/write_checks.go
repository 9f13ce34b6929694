package cmd

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
)

// writeChecks are the feasibility flags of the verbs that start a rollout after showing its
// plan (undo, resume, restart): preview's --checks and --fail-on-stall (pipeline.WriteChecks,
// pipeline.RefuseStall).
type writeChecks struct {
	// Checks is --checks (default all).
	Checks string
	// FailOnStall is --fail-on-stall: a plan the checks see stall exits ExitStalled, unwritten.
	FailOnStall bool

	run *pipeline.WriteChecks
}

func newWriteChecks() writeChecks { return writeChecks{Checks: "all"} }

// addFlags adds --checks and --fail-on-stall with preview's names and words.
func (c *writeChecks) addFlags(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&c.FailOnStall, "fail-on-stall", false, fmt.Sprintf("Exit with code %d, writing nothing, when the plan ends Stalled.", ExitStalled))
	cmd.Flags().StringVar(&c.Checks, "checks", c.Checks, "Feasibility checks run on the plan before the write: a comma-separated list of quota, capacity, pdb, hpa, or all, or none.")
}

// validate checks --checks (pure).
func (c *writeChecks) validate() error {
	_, err := feasibility.ParseChecks(c.Checks)
	return err
}

// checks is the pipeline's checks of --checks, made once: the objects are read once per
// namespace for the command's life.
func (c *writeChecks) checks() *pipeline.WriteChecks {
	if c.run == nil {
		c.run = pipeline.NewWriteChecks(c.Checks)
	}
	return c.run
}

// stallExit is err, or for a pipeline.StallError exit ExitStalled with its message.
func stallExit(err error) error {
	if se := (*pipeline.StallError)(nil); errors.As(err, &se) {
		return NewExitError(ExitStalled, se.Error())
	}
	return err
}
