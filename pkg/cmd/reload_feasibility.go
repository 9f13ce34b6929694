package cmd

import "github.com/rollplan/kubectl-rollplan/pkg/reloadoneshot"

// restartChecks is reloadoneshot.CheckFeasible: the feasibility checks of --checks on the plan
// of each restart (reload's, and the config restarts of preview).
var restartChecks = reloadoneshot.CheckFeasible

// restartsStall is reloadoneshot.Stalls: --fail-on-stall's exit 3.
var restartsStall = reloadoneshot.Stalls
