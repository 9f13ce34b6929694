package pipeline

import (
	"fmt"
	"slices"
	"sync"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// Input is what a Check decides on: one Deployment's state as read, the Deployment the change
// would store (the state's own without a change), and the plan.
type Input struct {
	// Source is the Member's Source name (the context; "" for the current one or a file).
	Source string
	// Live: the state is a cluster's; false for a state file.
	Live bool
	// FromManifest: the change applies a manifest (-f FILE on one Deployment).
	FromManifest bool
	State        *cluster.State
	Desired      *appsv1.Deployment
	Plan         *planner.Plan
}

// Check is one pure check run on every plan: Input in, findings out (each one line, printed
// as "warning: LINE" under the plan's header and in RolloutPlan.warnings), in a fixed order.
type Check struct {
	// Name identifies the check ("orphan").
	Name string
	// Run returns the findings of in (none: nil). Pure: no I/O, no clock.
	Run func(in Input) []string
}

var (
	checksMu sync.Mutex
	checks   = []Check{
		{Name: "offline", Run: offlineCheck},
		{Name: "orphan", Run: orphanCheck},
	}
)

// Register adds c to the checks every plan runs (after those already registered). Call it
// from an init function: pkg/feasibility's quota, capacity, PDB and HPA checks plug in here.
func Register(c Check) {
	checksMu.Lock()
	defer checksMu.Unlock()
	checks = append(checks, c)
}

// Checks returns the registered checks, in order: offline, orphan, then those Register added.
func Checks() []Check {
	checksMu.Lock()
	defer checksMu.Unlock()
	return slices.Clone(checks)
}

// RunChecks returns the findings of each of cs on in, in order.
func RunChecks(cs []Check, in Input) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Run(in)...)
	}
	return out
}

// offlineCheck: a manifest planned from a state file has a client-side defaulted template,
// so the new ReplicaSet's name (its pod-template-hash) may differ from the server's.
func offlineCheck(in Input) []string {
	if in.Live || !in.FromManifest {
		return nil
	}
	return []string{"offline: the manifest's template is defaulted client-side; the new ReplicaSet's name may differ from the one the server-defaulted template gets"}
}

// orphanCheck says, for each orphan ReplicaSet of the state, that the controller adopts it
// (mirrors ClaimReplicaSets' adoption, pkg/controller/deployment, v1.36.3).
func orphanCheck(in Input) []string {
	if in.State == nil {
		return nil
	}
	var out []string
	for _, rs := range in.State.Orphans {
		out = append(out, fmt.Sprintf("ReplicaSet %s has no owner: the controller adopts it at its next sync", rs.Name))
	}
	return out
}
