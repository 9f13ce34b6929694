package pipeline

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/estimate"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/status"
)

// Timing is the timed model's input (--readiness timed): how long pods take to become Ready.
type Timing struct {
	// PodReadyAfter is --pod-ready-after: DURATION or MIN..MAX; empty measures the live
	// Deployment's pods.
	PodReadyAfter string
	// SyncLatency is --sync-latency: a duration; empty fits it to the live Deployment's last
	// rollout (none for a state file).
	SyncLatency string
}

// Resolve returns the timed model for state read from src: nil, nil unless readiness is
// timed; the flag's estimate; or one LIST of the live Deployment's pods, measured
// (estimate.FromPods over its current and previous ReplicaSets) with the Ready times of its
// pods not yet available (estimate.Pending at now). The sync latency is the flag's, or, for
// a live state, fitted to its last rollout (status.SyncLatency); a state file without the
// flag has none. Errors: the flags' parse errors, the client's and the pod LIST's, and
// "no samples" (with what to give instead).
func (t Timing) Resolve(ctx context.Context, readiness planner.Readiness, src Source, state *cluster.State, now time.Time) (*estimate.Estimate, *planner.Timing, error) {
	if readiness != planner.ReadinessTimed {
		return nil, nil, nil
	}
	if t.PodReadyAfter != "" {
		e, err := estimate.ParseReadyAfter(t.PodReadyAfter)
		if err != nil {
			return nil, nil, err
		}
		if e.Latency, err = t.syncLatency(state, src.Live(), e); err != nil {
			return nil, nil, err
		}
		return &e, e.Timing(), nil
	}
	cs, err := src.Client()
	if err != nil {
		return nil, nil, err
	}
	d := state.Deployment
	pods, err := cluster.ListPods(ctx, cs, d)
	if err != nil {
		return nil, nil, err
	}
	e, err := estimate.FromPods(pods, estimate.SampledReplicaSets(state.ReplicaSets))
	if errors.Is(err, estimate.ErrNoSamples) {
		return nil, nil, fmt.Errorf("--readiness timed: deployment %s/%s: %w: give --pod-ready-after DURATION", d.Namespace, d.Name, err)
	}
	if err != nil {
		return nil, nil, err
	}
	if e.Latency, err = t.syncLatency(state, src.Live(), e); err != nil {
		return nil, nil, err
	}
	tm := e.Timing()
	tm.Pending = estimate.Pending(pods, state.ReplicaSets, e, d.Spec.MinReadySeconds, now)
	return &e, tm, nil
}

// syncLatency returns --sync-latency's figure, or for a live state the one fitted to its
// last rollout with pod readiness e (status.SyncLatency), or none (with why).
func (t Timing) syncLatency(state *cluster.State, live bool, e estimate.Estimate) (estimate.Latency, error) {
	if t.SyncLatency != "" {
		return estimate.ParseSyncLatency(t.SyncLatency)
	}
	if !live {
		return estimate.Latency{Why: "a state file has no rollout to measure"}, nil
	}
	return status.SyncLatency(state.Deployment, state.ReplicaSets, e), nil
}
