package status

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/deployutil"
	"github.com/rollplan/kubectl-rollplan/pkg/drive"
	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/stall"
)

// Phase is where a rollout stands, in kubectl's terms.
type Phase string

const (
	// PhaseProgressing: the rollout is not complete and has not failed (kubectl: "Waiting for
	// deployment ... rollout to finish").
	PhaseProgressing Phase = "Progressing"
	// PhaseComplete: kubectl's "successfully rolled out".
	PhaseComplete Phase = "Complete"
	// PhaseFailed: the controller set Progressing=False with reason ProgressDeadlineExceeded
	// (kubectl: "exceeded its progress deadline").
	PhaseFailed Phase = "ProgressDeadlineExceeded"
)

// ReplicaSet is one ReplicaSet's line of a status.
type ReplicaSet struct {
	Name     string
	Revision int64
	// New marks the Deployment's new ReplicaSet.
	New bool
	// Replicas is spec.replicas; Current, Ready and Available the status counts.
	Replicas, Current, Ready, Available int32
}

// Status is where one Deployment's rollout stands at At.
type Status struct {
	Namespace, Name string
	// At is the time the status was computed for.
	At time.Time
	// Replicas is spec.replicas; Paused spec.paused; Strategy the resolved strategy (zero
	// when the planner cannot resolve it).
	Replicas int32
	Paused   bool
	Strategy planner.Strategy
	// NewReplicaSet and Revision: the new ReplicaSet's name and revision ("" and 0 before the
	// controller created it).
	NewReplicaSet string
	Revision      int64
	// ReplicaSets: every ReplicaSet the controller claims, oldest first.
	ReplicaSets []ReplicaSet
	// Updated, Total, Available: the Deployment's status counts (updatedReplicas, replicas,
	// availableReplicas).
	Updated, Total, Available int32
	// Settled: the ReplicaSets as read give the Deployment's status counts (the controller
	// computes them from the ReplicaSets: calculateStatus). False while a watch has seen the
	// Deployment's status but not yet the ReplicaSet changes it was computed from.
	Settled bool

	// Phase, and kubectl's message for it (DeploymentStatusViewer.Status, without the
	// trailing newline).
	Phase   Phase
	Message string
	// Step of Steps: how many steps of Plan (the whole rollout, planned from StartState) the
	// live ReplicaSets have reached, in order. Steps is 0 when no plan could be made
	// (PlanError says why).
	Step, Steps int
	Plan        *planner.Plan
	PlanError   string
	// Next is the next write the controller makes (the plan from the live state), nil when
	// none is left.
	Next *Write
	// Waiting says what the controller waits for now ("" once complete).
	Waiting string
	// HeldBy is set when kubectl rollplan drive holds the Deployment (drive.Held's words);
	// Step and Steps are then drive's.
	HeldBy string

	// StartedAt: when the rollout started (zero: unknown); Elapsed: At - StartedAt, or, once
	// complete, CompletedAt - StartedAt.
	StartedAt, CompletedAt time.Time
	Elapsed                time.Duration
	// LastProgressAt: the Progressing condition's lastUpdateTime; DeadlineAt: when the
	// controller reports ProgressDeadlineExceeded without more progress (zero: no deadline
	// runs: complete, failed, paused, or progressDeadlineSeconds unset).
	LastProgressAt, DeadlineAt time.Time
	// ETA: the time the rest of the rollout takes from At under the time model, when known
	// (HasETA).
	ETA    time.Duration
	HasETA bool
	// ETABasis says what the time model assumed ("pods Ready after 2s (--pod-ready-after)"),
	// or, without an ETA, why ("none: 2 pods are not Ready after 9s, ...").
	ETABasis string
	// Warning: the deadline is near (see Options.WarnAfter), or the controller already gave
	// up; "" otherwise.
	Warning string

	// Stall: why the new ReplicaSet does not progress (stall.Diagnose), set by Follow while
	// it lacks available pods; empty otherwise. FailedFast: with Config.FailFast, a reason
	// has lasted Config.FailFastAfter.
	Stall      []stall.Reason
	FailedFast bool
	// Feasibility: what the feasibility checks (Config.Feasible) found on the remaining plan
	// (planned from the live Deployment and ReplicaSets, batched; its steps number that plan,
	// step 1 the controller's next write); nil when they found nothing or did not run.
	Feasibility *feasibility.Result
}

// Write is one ReplicaSet write of a plan, by name.
type Write struct {
	ReplicaSet string
	From, To   int32
	Create     bool
}

// String is "create web-5d4f 0 -> 3" or "web-5d4f 3 -> 5".
func (w Write) String() string {
	if w.Create {
		return fmt.Sprintf("create %s with %d", w.ReplicaSet, w.To)
	}
	return fmt.Sprintf("%s %d -> %d", w.ReplicaSet, w.From, w.To)
}

// Done reports whether the rollout ended: complete or failed.
func (s *Status) Done() bool { return s.Phase == PhaseComplete || s.Phase == PhaseFailed }

// Options tune Compute.
type Options struct {
	// WarnAfter is the fraction of progressDeadlineSeconds without progress after which the
	// status warns (0: DefaultWarnAfter).
	WarnAfter float64
	// Plan plans the whole rollout from StartState (nil: planner.Simulate, under the input's
	// readiness, batched; UseTimedModel sets the timed model's).
	Plan func(in planner.Input) (*planner.Plan, error)
	// RestBasis describes Rest's estimate, or why there is no Rest (Status.ETABasis).
	RestBasis string
	// Rest, when set, plans the rest of the rollout from the live state (in: the live
	// Deployment and ReplicaSets) under the time model (the caller sets Readiness timed and
	// the Timing); its Duration is the ETA, and a ProgressDeadlineAt warns. Nil, or an
	// error: no ETA.
	Rest func(in planner.Input) (*planner.Plan, error)
}

// DefaultWarnAfter: warn once half of progressDeadlineSeconds passed without progress.
const DefaultWarnAfter = 0.5

// Compute returns the status of the rollout of d (live, with rss, the ReplicaSets its
// controller claims, cluster.State.ReplicaSets) at now. It makes no request and reads no
// clock. A Deployment the planner cannot model still gets kubectl's verdict and the counts;
// PlanError says why the steps are missing.
func Compute(d *appsv1.Deployment, rss []*appsv1.ReplicaSet, now time.Time, opts Options) *Status {
	s := &Status{Namespace: d.Namespace, Name: d.Name, At: now, Replicas: ptr.Deref(d.Spec.Replicas, 1), Paused: d.Spec.Paused,
		Updated: d.Status.UpdatedReplicas, Total: d.Status.Replicas, Available: d.Status.AvailableReplicas}
	newRS := deployutil.FindNewReplicaSet(d, rss)
	s.Settled = settled(d, rss, newRS)
	for _, rs := range rss {
		rev, _ := deployutil.Revision(rs)
		s.ReplicaSets = append(s.ReplicaSets, ReplicaSet{Name: rs.Name, Revision: rev, New: rs == newRS,
			Replicas: ptr.Deref(rs.Spec.Replicas, 1), Current: rs.Status.Replicas, Ready: rs.Status.ReadyReplicas, Available: rs.Status.AvailableReplicas})
		if rs == newRS {
			s.NewReplicaSet, s.Revision = rs.Name, rev
		}
	}
	s.Phase, s.Message = Verdict(d)
	s.plan(d, rss, opts)
	s.times(d, rss, newRS)
	s.waiting(d, rss)
	var rest *planner.Plan
	if s.Phase == PhaseProgressing && !d.Spec.Paused {
		s.ETABasis = opts.RestBasis
		if opts.Rest != nil {
			if p, err := opts.Rest(planner.Input{Deployment: d, ReplicaSets: rss}); err == nil {
				rest, s.ETA, s.HasETA = p, p.Duration, true
			}
		}
	}
	if held := drive.Held(d, now); held != "" {
		s.held(d, held)
	}
	s.deadline(d, opts)
	s.predictedDeadline(rest)
	return s
}

// predictedDeadline warns when the time model (rest, the plan of the rest from now) expects
// the controller to report ProgressDeadlineExceeded before the rollout completes, unless a
// warning is already there.
func (s *Status) predictedDeadline(rest *planner.Plan) {
	if rest == nil || rest.ProgressDeadlineAt == nil || s.Warning != "" || s.HeldBy != "" {
		return
	}
	s.Warning = fmt.Sprintf("the time model expects ProgressDeadlineExceeded in %s (pods become available more slowly than progressDeadlineSeconds allows)",
		round(*rest.ProgressDeadlineAt))
}

// settled reports whether rss give d's status counts: replicas and availableReplicas summed,
// updatedReplicas the new ReplicaSet's (mirrors calculateStatus, pkg/controller/deployment/
// sync.go, v1.36.3, for those three counts).
func settled(d *appsv1.Deployment, rss []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) bool {
	var total, available, updated int32
	for _, rs := range rss {
		total += rs.Status.Replicas
		available += rs.Status.AvailableReplicas
	}
	if newRS != nil {
		updated = newRS.Status.Replicas
	}
	st := d.Status
	return st.Replicas == total && st.AvailableReplicas == available && st.UpdatedReplicas == updated
}

// Verdict is kubectl's verdict on d: the phase and kubectl's message (without the trailing
// newline). Mirrors DeploymentStatusViewer.Status, k8s.io/kubectl/pkg/polymorphichelpers/
// rollout_status.go, v0.36.3, without --revision: its error (the progress deadline) is
// PhaseFailed with the error's text.
func Verdict(d *appsv1.Deployment) (Phase, string) {
	if d.Generation > d.Status.ObservedGeneration {
		return PhaseProgressing, "Waiting for deployment spec update to be observed..."
	}
	if c := progressing(d); c != nil && c.Reason == TimedOutReason {
		return PhaseFailed, fmt.Sprintf("deployment %q exceeded its progress deadline", d.Name)
	}
	st := d.Status
	switch {
	case d.Spec.Replicas != nil && st.UpdatedReplicas < *d.Spec.Replicas:
		return PhaseProgressing, fmt.Sprintf("Waiting for deployment %q rollout to finish: %d out of %d new replicas have been updated...", d.Name, st.UpdatedReplicas, *d.Spec.Replicas)
	case st.Replicas > st.UpdatedReplicas:
		return PhaseProgressing, fmt.Sprintf("Waiting for deployment %q rollout to finish: %d old replicas are pending termination...", d.Name, st.Replicas-st.UpdatedReplicas)
	case st.AvailableReplicas < st.UpdatedReplicas:
		return PhaseProgressing, fmt.Sprintf("Waiting for deployment %q rollout to finish: %d of %d updated replicas are available...", d.Name, st.AvailableReplicas, st.UpdatedReplicas)
	}
	return PhaseComplete, fmt.Sprintf("deployment %q successfully rolled out", d.Name)
}

// Reasons of the Deployment's Progressing condition. Mirrors the constants of
// pkg/controller/deployment/util/deployment_util.go, v1.36.3.
const (
	// TimedOutReason: the progress deadline passed (Progressing=False).
	TimedOutReason = "ProgressDeadlineExceeded"
	// NewRSAvailableReason: the rollout is complete (Progressing=True).
	NewRSAvailableReason = "NewReplicaSetAvailable"
	// NewReplicaSetReason: the controller created the new ReplicaSet.
	NewReplicaSetReason = "NewReplicaSetCreated"
	// FoundNewRSReason: the controller found (and updated) an existing new ReplicaSet.
	FoundNewRSReason = "FoundNewReplicaSet"
	// PausedDeployReason, ResumedDeployReason: spec.paused changed (Progressing=Unknown).
	PausedDeployReason  = "DeploymentPaused"
	ResumedDeployReason = "DeploymentResumed"
)

// progressing returns d's Progressing condition, nil if none.
func progressing(d *appsv1.Deployment) *appsv1.DeploymentCondition {
	for i := range d.Status.Conditions {
		if d.Status.Conditions[i].Type == appsv1.DeploymentProgressing {
			return &d.Status.Conditions[i]
		}
	}
	return nil
}

// Result is how a status command ends for a set of Deployments.
type Result int

const (
	// ResultComplete: every rollout is complete.
	ResultComplete Result = iota
	// ResultWaiting: some rollout is neither complete nor failed (the command did not wait,
	// or is still waiting).
	ResultWaiting
	// ResultFailed: some rollout exceeded its progress deadline (whatever the others do).
	ResultFailed
	// ResultTimedOut: the wait ended (--timeout) before every rollout was complete, and
	// none failed.
	ResultTimedOut
	// ResultFailedFast: with --fail-fast, the new pods of some rollout stayed in a state
	// that holds it back (Status.FailedFast) for --fail-fast-after, and none exceeded its
	// progress deadline.
	ResultFailedFast
)

// Summarize returns the result of sts, the last status of each Deployment; timedOut says the
// wait ended before they were all done. Mirrors the exits of `kubectl rollout status`
// (k8s.io/kubectl/pkg/cmd/rollout/rollout_status.go, v0.36.3): a failure (the progress
// deadline) ends in an error, complete in success, --timeout in an error; without --watch a
// rollout still in progress is not an error.
func Summarize(sts []*Status, timedOut bool) Result {
	complete := true
	for _, s := range sts {
		if s.Phase == PhaseFailed {
			return ResultFailed
		}
		complete = complete && s.Phase == PhaseComplete
	}
	switch {
	case anyFailedFast(sts):
		return ResultFailedFast
	case complete:
		return ResultComplete
	case timedOut:
		return ResultTimedOut
	}
	return ResultWaiting
}

func anyFailedFast(sts []*Status) bool {
	for _, s := range sts {
		if s.FailedFast {
			return true
		}
	}
	return false
}

// AllDone reports whether every rollout of sts is complete or failed: a watch can stop.
func AllDone(sts []*Status) bool {
	for _, s := range sts {
		if !s.Done() {
			return false
		}
	}
	return true
}
