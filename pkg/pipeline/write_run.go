package pipeline

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
	"github.com/rollplan/kubectl-rollplan/pkg/kube"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// Readiness is the planner's model of when new pods become available (planner.Readiness:
// batched, instant, never, timed), named here so that commands set it without the planner.
type Readiness = planner.Readiness

// LoadLive is cluster.LoadLive (one GET, one LIST) through transient failures of the API
// server (kube.IsTransient: a restart, 5xx, 429, a refused or reset connection), retried
// with the one policy of the writes, kube.Retry: kube.TransientBackoff until
// kube.TransientTimeout (30s) after the first attempt. A read is sent again whole; it
// changes nothing, so sending it twice is harmless.
//
// Errors: LoadLive's (not found, forbidden: at once); after retries, the last transient
// one with "(gave up after N attempts in D)"; ctx's end.
func LoadLive(ctx context.Context, client kubernetes.Interface, namespace, name string) (*cluster.State, error) {
	return kube.Read(ctx, kube.Retry{}, func(ctx context.Context) (*cluster.State, error) {
		return cluster.LoadLive(ctx, client, namespace, name)
	})
}

// WriteChecks are the feasibility checks of the verbs that start a rollout after showing its
// plan (undo, resume, restart): preview's --checks, run through Config.CheckWrite on the plan
// shown before the write. The zero value runs none; build it with NewWriteChecks.
type WriteChecks struct {
	checks []string
	cfg    *Config
	src    Source
}

// NewWriteChecks returns the WriteChecks of --checks value checks (feasibility.ParseChecks;
// a value it refuses runs no check: validate the flag first).
func NewWriteChecks(checks string) *WriteChecks {
	parsed, _ := feasibility.ParseChecks(checks)
	return &WriteChecks{checks: parsed}
}

// Check runs the checks on plan, the plan of desired (the Deployment the write makes) from
// state, reading through client; the objects are read once per namespace for c's life. It
// returns the Result (nil: nothing to say) and the plan to show. Errors: CheckWrite's.
func (c *WriteChecks) Check(ctx context.Context, client kubernetes.Interface, readiness Readiness, state *cluster.State, desired *appsv1.Deployment, plan *planner.Plan) (*feasibility.Result, *planner.Plan, error) {
	if c.cfg == nil {
		c.cfg = &Config{Readiness: readiness, Feasibility: c.checks}
		c.src = NewLive("", "", func() (kubernetes.Interface, error) { return client, nil })
	}
	return c.cfg.CheckWrite(ctx, c.src, state, desired, plan)
}

// FieldManager is the field manager rollplan's writes are recorded under (kube.FieldManager).
const FieldManager = kube.FieldManager

// ReloadFieldManager is the field manager of reload's writes (kube.ReloadFieldManager: not
// "kubectl"-prefixed, so Flux does not take its fields over).
const ReloadFieldManager = kube.ReloadFieldManager
