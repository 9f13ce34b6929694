package pipeline

import (
	"context"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// ReadFunc returns every Deployment of a namespace with its State: manifest.Config.Read (the
// cluster's LIST per namespace, or a state file's: ReadStateFile).
type ReadFunc = func(ctx context.Context, namespace string) ([]cluster.Member, error)

// FeasibleFunc is manifest.Config.Feasible: the feasibility checks on a Deployment's planner
// input (live nil for a create).
type FeasibleFunc = func(ctx context.Context, live *cluster.State, in planner.Input) (*feasibility.Result, error)

// SetFeasible is manifest.Config.Feasible of a set planned against src: the feasibility
// checks of checksFlag (--checks, already validated), their objects read once per namespace.
// Offline (read, the state file's Read, non-nil) a Deployment the set creates is checked
// against the objects the state file holds for its namespace (those of any of its Deployments
// there). nil without checks.
func SetFeasible(checksFlag string, src Source, read ReadFunc) FeasibleFunc {
	checks, _ := feasibility.ParseChecks(checksFlag) // Validate refused a bad value
	if len(checks) == 0 {
		return nil
	}
	pcfg := &Config{Feasibility: checks}
	return func(ctx context.Context, live *cluster.State, in planner.Input) (*feasibility.Result, error) {
		ns := in.Deployment.Namespace
		if live == nil && read != nil {
			live = stateFileObjects(ctx, read, ns)
		}
		return pcfg.Feasible(ctx, src, Member{Ref: target.Ref{Namespace: ns, Name: in.Deployment.Name}, State: live}, in)
	}
}

// stateFileObjects is a State carrying only the state file's check objects of namespace ns
// (nil: the file has no Deployment there).
func stateFileObjects(ctx context.Context, read ReadFunc, ns string) *cluster.State {
	members, err := read(ctx, ns)
	if err != nil {
		return nil
	}
	for _, m := range members {
		if m.State != nil && m.State.CheckObjects != nil {
			return &cluster.State{CheckObjects: m.State.CheckObjects}
		}
	}
	return nil
}

// ReadStateFile returns the Read of an offline preview of a manifest set: the state file at
// path is read once (cluster.LoadFileAll), and each namespace gets its Deployments (those
// without a namespace match any; namespace "" gets them all). Errors: the file's, on every
// call.
func ReadStateFile(path string) ReadFunc {
	var all []cluster.Member
	var loadErr error
	loaded := false
	return func(_ context.Context, ns string) ([]cluster.Member, error) {
		if !loaded {
			all, loadErr = cluster.LoadFileAll(path)
			loaded = true
		}
		if loadErr != nil {
			return nil, loadErr
		}
		var out []cluster.Member
		for _, m := range all {
			if ns == "" || m.Deployment.Namespace == "" || m.Deployment.Namespace == ns {
				out = append(out, m)
			}
		}
		return out, nil
	}
}
