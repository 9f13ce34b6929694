package reloadoneshot

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/kube"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/reload"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
	"github.com/rollplan/kubectl-rollplan/pkg/workload"
)

// DefaultReadiness is --readiness's default for reload (planner.ReadinessBatched).
const DefaultReadiness = string(planner.ReadinessBatched)

// Config is one run of `kubectl rollplan reload` without --watch, as its flags give it
// (pkg/cmd's ReloadOptions fills it, as stern's flags fill its Config): which Deployments,
// StatefulSets and DaemonSets, how they are assessed, and how the writes are made and paced.
// The command then calls Run (Assess, show, ask, Restart and WriteKinds, in order).
type Config struct {
	// Selection selects the Deployments (names, -l, --all, -A); nil when the arguments
	// name StatefulSets or DaemonSets (then no Deployment is selected).
	Selection *target.Selection
	// KindArgs are the StatefulSets and DaemonSets the arguments name (target.ParseKindArgs);
	// KindsNamespace is -n's (or the context's), the namespace of the opted-in ones without
	// AllNamespaces.
	KindArgs       target.KindArgs
	KindsNamespace string
	// Bulk is -l, --all or -A given: the opted-in StatefulSets and DaemonSets follow the
	// Deployments. AllNamespaces is -A; Selector is -l.
	Bulk          bool
	AllNamespaces bool
	Selector      string
	// Adopt is --adopt: record the checksums of first-sight workloads, restart nothing.
	Adopt bool
	// Readiness is --readiness (a planner.Readiness; "" is DefaultReadiness).
	Readiness string
	// Checks is --checks: the feasibility checks run on each restart's plan.
	Checks string
	// MaxConcurrent and Timeout pace the restarts (RunOptions).
	MaxConcurrent int
	Timeout       time.Duration
	// FieldManager is --field-manager of every patch.
	FieldManager string
	// ClientDryRun (--dry-run=client) sends nothing; ServerDryRun (--dry-run=server) sends
	// every patch with dryRun=All and waits for none.
	ClientDryRun, ServerDryRun bool
	// Progress receives the restarts' progress lines (RunOptions.Progress).
	Progress io.Writer
	// Now is the clock of the waits (nil: time.Now).
	Now func() time.Time
	// Drive, when set, walks each Deployment restart (--drive; RunOptions.Drive).
	Drive func(ctx context.Context, t *Target) error
}

// Assessment is what one run would write: the Deployments assessed (Assess, with the
// feasibility checks' findings), then the StatefulSets and DaemonSets (AssessKind).
type Assessment struct {
	Targets []*Target
	Kinds   []*KindTarget
}

// readiness is c.Readiness as the planner's type.
func (c *Config) readiness() planner.Readiness {
	if c.Readiness == "" {
		return planner.ReadinessBatched
	}
	return planner.Readiness(c.Readiness)
}

// Assess reads and assesses the selection through client: the Deployments (Load, Assess,
// CheckFeasible of Checks) unless the arguments named other kinds, then the StatefulSets
// and DaemonSets (AssessKinds). Nothing is written. Errors: a read's, a check's.
func (c *Config) Assess(ctx context.Context, client kubernetes.Interface) (*Assessment, error) {
	a := &Assessment{}
	if !c.namedKinds() {
		states, err := Load(ctx, client, c.Selection)
		if err != nil {
			return nil, err
		}
		if a.Targets, err = Assess(ctx, client, cluster.NewConfig(client), states,
			AssessOptions{Adopt: c.Adopt, Readiness: c.readiness()}); err != nil {
			return nil, err
		}
		if err := CheckFeasible(ctx, client, c.Checks, c.readiness(), a.Targets); err != nil {
			return nil, err
		}
	}
	var err error
	a.Kinds, err = c.AssessKinds(ctx, client)
	return a, err
}

// kindsSelected reports whether the run selects StatefulSets and DaemonSets: named ones
// (sts/NAME, ds/NAME, ...), or with -l/--all/-A the opted-in ones besides the Deployments.
func (c *Config) kindsSelected() bool {
	return c.namedKinds() || c.Bulk
}

// namedKinds reports whether the arguments named StatefulSets or DaemonSets (then no
// Deployment is selected).
func (c *Config) namedKinds() bool {
	return c.KindArgs.Kind != "" || len(c.KindArgs.Refs) > 0
}

// AssessKinds reads and assesses the selected StatefulSets and DaemonSets (AssessKind): the
// named ones (no opt-in needed), or the opted-in ones of the namespace (every namespace with
// -A; -l narrows; a bare "sts"/"ds" argument keeps that kind). Nil when none is selected.
func (c *Config) AssessKinds(ctx context.Context, client kubernetes.Interface) ([]*KindTarget, error) {
	if !c.kindsSelected() {
		return nil, nil
	}
	var ws []workload.Workload
	if len(c.KindArgs.Refs) > 0 {
		for _, ref := range c.KindArgs.Refs {
			w, err := GetKind(ctx, client, ref)
			if err != nil {
				return nil, err
			}
			ws = append(ws, w)
		}
	} else {
		ns := c.KindsNamespace
		if c.AllNamespaces {
			ns = ""
		}
		all, err := ListKinds(ctx, client, ns, c.Selector)
		if err != nil {
			return nil, err
		}
		for _, w := range all {
			if c.KindArgs.Kind == "" || string(w.Kind()) == string(c.KindArgs.Kind) {
				ws = append(ws, w)
			}
		}
	}
	config := cluster.NewConfig(client)
	out := make([]*KindTarget, 0, len(ws))
	for _, w := range ws {
		t, err := AssessKind(ctx, config, w, c.Adopt)
		if err != nil {
			return nil, err
		}
		if err := LoadReuse(ctx, client, t); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// Refusal is one line naming every refused workload, or nil: nothing is written then.
func (a *Assessment) Refusal() error {
	var msgs []string
	for _, t := range a.Targets {
		if err := t.Refusal(); err != nil {
			msgs = append(msgs, err.Error())
		}
	}
	for _, k := range a.Kinds {
		if k.Action == reload.ActionRefuse {
			msgs = append(msgs, k.Decision.Refusal.Error())
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return fmt.Errorf("%s; nothing was written", strings.Join(msgs, "; "))
}

// Writes is how many workloads the run writes (restarts and adoptions, every kind).
func (a *Assessment) Writes() int { return CountWrites(a.Targets) + a.KindWrites() }

// KindWrites is how many StatefulSets and DaemonSets the run writes.
func (a *Assessment) KindWrites() int {
	n := 0
	for _, k := range a.Kinds {
		if k.Writes() {
			n++
		}
	}
	return n
}

// CountWrites is how many of targets are restarted or adopted.
func CountWrites(targets []*Target) int {
	n := 0
	for _, t := range targets {
		if t.Action == reload.ActionRestart || t.Action == reload.ActionAdopt {
			n++
		}
	}
	return n
}

// DryRunResults are the Results of --dry-run=client: one per Deployment restarted or
// adopted, nothing written.
func (a *Assessment) DryRunResults() []Result {
	var out []Result
	for _, t := range a.Targets {
		if t.Action == reload.ActionRestart || t.Action == reload.ActionAdopt {
			out = append(out, Result{Target: t})
		}
	}
	return out
}

// Restart makes the Deployments' writes of a (Restart, paced by MaxConcurrent, or walked by
// Drive) with c's field manager and server dry run.
func (c *Config) Restart(ctx context.Context, client kubernetes.Interface, a *Assessment) []Result {
	return Restart(ctx, client, a.Targets, RunOptions{
		MaxConcurrent: c.MaxConcurrent,
		Timeout:       c.Timeout,
		Write:         kube.Options{FieldManager: c.FieldManager, DryRun: c.ServerDryRun},
		Progress:      c.Progress,
		Now:           c.Now,
		Drive:         c.Drive,
	})
}

// WriteKinds carries out each kind's write of a, one at a time (each restart waited for up
// to Timeout unless a dry run), after the Deployments'; with ClientDryRun nothing is sent.
// One KindResult per StatefulSet or DaemonSet written, in order.
func (c *Config) WriteKinds(ctx context.Context, client kubernetes.Interface, a *Assessment) []KindResult {
	var results []KindResult
	for _, k := range a.Kinds {
		if !k.Writes() {
			continue
		}
		if c.ClientDryRun {
			results = append(results, KindResult{Workload: k.Workload, Decision: k.Decision,
				Restarted: k.Action == reload.ActionRestart, Adopted: k.Action == reload.ActionAdopt})
			continue
		}
		results = append(results, WriteKind(ctx, client, k, KindOptions{
			DryRun: c.ServerDryRun, Timeout: c.Timeout, FieldManager: c.FieldManager,
		}))
	}
	return results
}

// OutputPlans are the plans of -o, one per target in order (Target.OutputPlan with c's
// readiness). Errors: the planner's.
func (c *Config) OutputPlans(targets []*Target) ([]*planner.Plan, error) {
	plans := make([]*planner.Plan, len(targets))
	for i, t := range targets {
		var err error
		if plans[i], err = t.OutputPlan(c.readiness()); err != nil {
			return nil, err
		}
	}
	return plans, nil
}
