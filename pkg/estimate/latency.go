package estimate

import (
	"errors"
	"fmt"
	"time"

	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// LatencySource says where a sync latency comes from.
type LatencySource string

const (
	// LatencyNone: no figure (0): offline without --sync-latency, or nothing to measure
	// (Latency.Why says why).
	LatencyNone LatencySource = ""
	// LatencyFlag: --sync-latency DURATION.
	LatencyFlag LatencySource = "flag"
	// LatencyRollout: fitted to the Deployment's last rollout (FitSyncLatency).
	LatencyRollout LatencySource = "rollout"
)

// Latency is the controllers' reaction time per write the timed model adds
// (planner.Timing.SyncLatency), and where it comes from.
type Latency struct {
	Source LatencySource
	// PerWrite is the latency: pods a write asks for start this long after it. Not negative.
	PerWrite time.Duration
	// For LatencyRollout: the new ReplicaSet of the rollout replayed, how long that rollout
	// took (second precision), how long the model gives it without latency, and how many
	// latencies the fit put on its critical path (Took - Modelled = Waves x PerWrite, up to
	// rounding).
	ReplicaSet     string
	Took, Modelled time.Duration
	Waves          float64
	// Why says, for LatencyNone, why nothing was measured.
	Why string
}

// Rollout is a Deployment's last finished rollout, as its objects still show it (built by
// status.LastRollout).
type Rollout struct {
	// Start is the state the rollout started from (status.StartState): the planner input
	// without Readiness and Timing, which FitSyncLatency sets.
	Start planner.Input
	// ReplicaSet is the rollout's new ReplicaSet.
	ReplicaSet string
	// Took is how long it took: from its new ReplicaSet's creationTimestamp to the
	// lastUpdateTime of the Progressing condition the controller set when it completed
	// (reason NewReplicaSetAvailable). Both have second precision, so Took is within 1 s of
	// the truth.
	Took time.Duration
}

// ParseSyncLatency parses --sync-latency: a non-negative Go duration ("500ms", "1s").
func ParseSyncLatency(s string) (Latency, error) {
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return Latency{}, fmt.Errorf("--sync-latency %q: want a non-negative duration such as 500ms or 0", s)
	}
	return Latency{Source: LatencyFlag, PerWrite: d}, nil
}

// ErrNoFit is returned (wrapped) by FitSyncLatency when the model cannot replay the rollout.
var ErrNoFit = errors.New("cannot replay the last rollout")

// FitSyncLatency returns the sync latency under which the timed model, with e's ready-after
// values and r.Start, gives r's measured duration: the controllers' reaction time per write
// (pod creation, status updates, the next sync) that this Deployment showed, beside the pod
// readiness e has. The model's duration grows with the latency (one latency per wave of pods
// on the rollout's critical path), so the fit is a bisection over [0, r.Took] to the
// millisecond. A rollout that took no longer than the model gives without latency fits 0.
// The one rollout is the sample: its measured duration has second precision, so the figure
// is within 1 s / Waves of what the timestamps would give at full precision.
//
// Errors (wrapping ErrNoFit): the model cannot plan r.Start, or its plan does not complete.
func FitSyncLatency(r Rollout, e Estimate) (Latency, error) {
	duration := func(latency time.Duration) (time.Duration, error) {
		in := r.Start
		in.Readiness = planner.ReadinessTimed
		in.Timing = &planner.Timing{ReadyAfter: e.ReadyAfter, SyncLatency: latency}
		p, err := planner.Simulate(in)
		if err != nil {
			return 0, fmt.Errorf("%w of %s: %w", ErrNoFit, r.ReplicaSet, err)
		}
		if p.Outcome != planner.OutcomeComplete {
			return 0, fmt.Errorf("%w of %s: the model's replay ends %s", ErrNoFit, r.ReplicaSet, p.Outcome)
		}
		return p.Duration, nil
	}
	modelled, err := duration(0)
	if err != nil {
		return Latency{}, err
	}
	l := Latency{Source: LatencyRollout, ReplicaSet: r.ReplicaSet, Took: r.Took, Modelled: modelled}
	if modelled >= r.Took {
		return l, nil
	}
	// Invariant: duration(lo) < Took <= duration(hi). duration(Took) >= Took: the first
	// pods a write asks for start Took after it.
	lo, hi := time.Duration(0), r.Took
	for hi-lo > time.Millisecond/2 {
		mid := lo + (hi-lo)/2
		d, err := duration(mid)
		if err != nil {
			return Latency{}, err
		}
		if d < r.Took {
			lo = mid
		} else {
			hi = mid
		}
	}
	l.PerWrite = hi.Round(time.Millisecond)
	if l.PerWrite > 0 {
		l.Waves = float64(r.Took-modelled) / float64(l.PerWrite)
	}
	return l, nil
}
