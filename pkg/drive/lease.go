package drive

import (
	"context"
	"errors"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/jsonpatch"
	"github.com/rollplan/kubectl-rollplan/pkg/kube"
)

// acquire takes the lease of a held Deployment (guarded by the annotation's value).
func (d *Driver) acquire(ctx context.Context, snap *Snapshot) error {
	s := snap.State
	val := snap.Deployment.Annotations[Annotation]
	d.held.set(s, val, snap.Deployment)
	prevHolder := ""
	if s.LeaseValid(d.now()) && s.Holder != d.identity {
		if !d.opts.Force {
			return fmt.Errorf("%s is being driven by %s (lease valid until %s): wait, or pass --force if that driver is gone", d.ref(), s.Holder, s.LeaseExpires.Format(time.RFC3339))
		}
		prevHolder = s.Holder
	}
	err := d.writeState(ctx, func(s *State) {
		s.Holder, s.LastHolder = d.identity, d.identity
		s.HeldSince, s.HeldReason = nil, ""
	})
	if errors.Is(err, kube.ErrGuard) {
		return &StoppedError{Msg: fmt.Sprintf("%s: another driver took the lease at the same time: see `kubectl rollplan drive status deploy/%s`", d.ref(), d.opts.Name)}
	}
	if err != nil {
		return err
	}
	if prevHolder != "" {
		d.out.linef("took the lease of %s from %s (--force)", d.ref(), prevHolder)
		d.ev.Eventf(d.deployment(), corev1.EventTypeWarning, ReasonLease, "Lease taken from %s by %s (--force)", prevHolder, d.identity)
	}
	d.out.linef("continuing the drive of %s (plan %s, %s step %d of %d, new ReplicaSet %s)", d.ref(), s.PlanID, d.phaseWord(), s.Step, s.Steps, s.NewReplicaSet)
	return nil
}

// writeState rewrites the drive annotation with mutate applied, guarded by a test of the
// annotation's last known value; the lease is renewed by every write the holder makes.
// extra operations ride along in the same patch.
//
// Transient failures are retried until the lease would lapse (writeDeadline); a write sent
// again after a lost answer that fails its test is done when the annotation shows it. A
// test that fails because an earlier write of this driver landed although its caller
// never learnt it (its answer lost, then its context ended: a renewal stopped before the
// hand-back) is sent once more on the value found.
func (d *Driver) writeState(ctx context.Context, mutate func(*State), extra ...jsonpatch.Op) error {
	return d.held.update(func(cur *State, annValue string, dep *appsv1.Deployment) (*State, string, *appsv1.Deployment, error) {
		for resynced := false; ; resynced = true {
			next, val, out, err := d.sendState(ctx, cur, annValue, dep, mutate, extra)
			if !errors.Is(err, kube.ErrGuard) {
				return next, val, out, err
			}
			if fresh, ferr := d.getDeployment(ctx); !resynced && ferr == nil && d.ownWrite(cur, fresh) {
				annValue, dep = fresh.Annotations[Annotation], fresh
				continue
			}
			return nil, "", nil, d.lostHold(ctx, dep, cur.PlanID, err)
		}
	})
}

// sendState makes one state write of writeState on dep, whose annotation has annValue.
func (d *Driver) sendState(ctx context.Context, cur *State, annValue string, dep *appsv1.Deployment, mutate func(*State), extra []jsonpatch.Op) (*State, string, *appsv1.Deployment, error) {
	next := *cur
	mutate(&next)
	// The API server bumps metadata.generation of a Deployment on every annotation change
	// (annotations are copied to the new ReplicaSet), once per write.
	next.Generation = dep.Generation + 1
	now := d.now().UTC()
	next.UpdatedAt = now
	if next.Holder == d.identity {
		exp := now.Add(d.lease)
		next.LeaseExpires = &exp
	}
	val, err := next.Encode()
	if err != nil {
		return nil, "", nil, err
	}
	path := jsonpatch.AnnotationPath(Annotation)
	ops := append([]jsonpatch.Op{jsonpatch.Test(path, annValue), jsonpatch.Replace(path, val)}, extra...)
	var out *appsv1.Deployment
	err = d.retryUntil(ctx, d.writeDeadline(cur), "write the drive state of "+d.ref(), false, func(ctx context.Context, retried bool) error {
		var err error
		if out, err = kube.PatchDeployment(ctx, d.client, dep, ops, d.writes()); err != nil {
			// A patch sent again after a lost answer fails its test: done if it shows.
			out, err = kube.Applied(ctx, retried, err, d.getDeploymentOnce, func(now *appsv1.Deployment) bool {
				return now.Annotations[Annotation] == val
			})
		}
		return err
	})
	if err != nil {
		return nil, "", nil, err
	}
	return &next, val, out, nil
}

// ownWrite reports whether fresh carries a drive state that differs from cur, the state
// this driver holds, only by a renewal of its own lease (timestamps, lease expiry,
// generation): an earlier write of this driver landed unbeknown to it.
func (d *Driver) ownWrite(cur *State, fresh *appsv1.Deployment) bool {
	fs, err := ReadState(fresh)
	if err != nil || fs == nil || cur.Holder != d.identity || fs.Holder != d.identity {
		return false
	}
	a, b := *cur, *fs
	a.LeaseExpires, b.LeaseExpires, a.UpdatedAt, a.Generation, b.Generation = nil, nil, b.UpdatedAt, 0, 0
	av, aerr := a.Encode()
	bv, berr := b.Encode()
	return aerr == nil && berr == nil && av == bv
}

// writeDeadline is when retries of a state write stop: the lease's expiry while this
// driver holds it (the write would renew it; after it, the driver must not write), else
// the step's progress timeout.
func (d *Driver) writeDeadline(cur *State) time.Time {
	if cur != nil && cur.Holder == d.identity && cur.LeaseExpires != nil {
		return *cur.LeaseExpires
	}
	return d.now().Add(d.progressTimeout())
}

// getDeploymentOnce reads the Deployment once (no retries: Applied's read).
func (d *Driver) getDeploymentOnce(ctx context.Context) (*appsv1.Deployment, error) {
	return d.client.AppsV1().Deployments(d.opts.Namespace).Get(ctx, d.opts.Name, metav1.GetOptions{})
}

// lostHold tells a failed guard of a state write caused by another holder (errLostHold,
// wrapped) from any other change (err), from a fresh read of dep.
func (d *Driver) lostHold(ctx context.Context, dep *appsv1.Deployment, planID string, err error) error {
	fresh, gerr := d.getDeployment(ctx)
	if gerr == nil {
		if cur, rerr := ReadState(fresh); rerr == nil && (cur == nil || cur.PlanID != planID || (cur.Holder != "" && cur.Holder != d.identity)) {
			return fmt.Errorf("%w: %s", errLostHold, describeHolder(cur))
		}
	}
	return err
}

func describeHolder(s *State) string {
	switch {
	case s == nil:
		return "the drive annotation was removed (the Deployment was handed back or edited)"
	case s.Holder != "":
		return fmt.Sprintf("%s holds it now (plan %s)", s.Holder, s.PlanID)
	}
	return fmt.Sprintf("another drive (plan %s) holds it now", s.PlanID)
}

// startRenew starts renewing the lease in the background (stopRenew stops it).
func (d *Driver) startRenew(ctx context.Context) {
	done := make(chan struct{})
	rctx, stop := context.WithCancel(ctx)
	go func() {
		defer close(done)
		d.renewLoop(rctx, d.cancelRun)
	}()
	d.stopRenew = func() { stop(); <-done }
}

// renewLoop renews the lease every third of its duration until ctx ends. It cancels the run
// (cancel) when the hold is lost or the lease could not be renewed before it expired.
func (d *Driver) renewLoop(ctx context.Context, cancel context.CancelCauseFunc) {
	t := time.NewTicker(d.lease / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		err := d.writeState(ctx, func(*State) {})
		switch {
		case err == nil || ctx.Err() != nil:
		case errors.Is(err, errLostHold):
			cancel(&StoppedError{Lost: true, Msg: fmt.Sprintf("%s: drive lost its hold: %v; it stopped without writing", d.ref(), err)})
			return
		case d.leaseOK() != nil:
			cancel(fmt.Errorf("%s: could not renew the lease before it expired: %w (%w)", d.ref(), errLeaseLapsed, err))
			return
		default:
			d.out.linef("warning: renew the lease of %s: %v (retrying)", d.ref(), err)
		}
	}
}

// leaseOK reports an error when this driver's lease has expired (it must not write).
func (d *Driver) leaseOK() error {
	s := d.held.state()
	if s == nil || s.Holder != d.identity || s.LeaseExpires == nil || !d.now().Before(*s.LeaseExpires) {
		return fmt.Errorf("%s: %w: stopped without writing; run drive again", d.ref(), errLeaseLapsed)
	}
	return nil
}

// hold releases the lease and leaves the Deployment held, with why.
func (d *Driver) hold(ctx context.Context, reason string) (*Result, error) {
	now := d.now().UTC()
	if err := d.release(ctx, reason, now); err != nil {
		return nil, err
	}
	s, _, dep := d.held.snapshot()
	d.out.linef("holding %s at step %d of %d: %s; run `kubectl rollplan drive deploy/%s` to continue, `kubectl rollplan abort deploy/%s` to walk back, or `kubectl rollplan resume deploy/%s` to hand it back",
		d.ref(), s.Step, s.Steps, reason, d.opts.Name, d.opts.Name, d.opts.Name)
	d.ev.Eventf(dep, corev1.EventTypeNormal, ReasonHeld, "Held at step %d/%d: %s", s.Step, s.Steps, reason)
	return &Result{Outcome: OutcomeHeld, Reason: reason, Step: s.Step, Steps: s.Steps}, nil
}

func (d *Driver) release(ctx context.Context, reason string, now time.Time) error {
	return d.writeState(ctx, func(s *State) {
		s.Holder, s.LeaseExpires, s.LastHolder = "", nil, d.identity
		s.HeldSince, s.HeldReason = &now, reason
	})
}

// errLeaseLapsed is wrapped by the error of a driver whose lease lapsed (it could not be
// renewed in time, the API server being unreachable): it writes nothing more.
var errLeaseLapsed = errors.New("the lease of this driver has expired")

// stopped ends a run that failed with err while this driver held the Deployment: it
// releases the lease (best effort, within 10 s, and not once the lease has lapsed: then
// the driver writes nothing more), records why, and returns err as a *HeldError saying
// where the Deployment stands. A hold lost to another driver, or a Deployment not (or no
// longer) held by this driver, returns err as it is.
func (d *Driver) stopped(ctx context.Context, err error) error {
	var se *StoppedError
	s := d.held.state()
	if s == nil || errors.Is(err, errLostHold) || (errors.As(err, &se) && se.Lost) || s.Holder != d.identity {
		return err
	}
	released := false
	if d.leaseOK() == nil {
		wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		if rerr := d.release(wctx, "stopped: "+err.Error(), d.now().UTC()); rerr == nil {
			released = true
			s2, _, dep := d.held.snapshot()
			d.ev.Eventf(dep, corev1.EventTypeWarning, ReasonStopped, "Drive stopped at step %d/%d: %v", s2.Step, s2.Steps, err)
		}
	}
	he := &HeldError{Err: err, Intact: intact(ctx, err), Step: s.Step, Steps: s.Steps, Phase: s.Phase,
		Released: released, LeaseExpires: s.LeaseExpires, PlanID: s.PlanID}
	if u := d.stepInFlight(); u.Number > s.Step && len(u.Landed) > 0 {
		he.InStep, he.Landed = u.Number, u.Landed
	}
	return he
}

// intact reports whether err, the end of a run, leaves the Deployment held with nothing to
// review: an interruption (the run's context ended), the API server unreachable beyond the
// retries (a transient failure), the lease lapsed. The next run continues it.
func intact(ctx context.Context, err error) bool {
	return ctx.Err() != nil || kube.IsContextError(err) || kube.IsTransient(err) || errors.Is(err, errLeaseLapsed)
}

// HeldError is the error of a run that ended while its Deployment stays held by drive
// (paused, strategy Recreate), for any cause but an on-purpose hold (OutcomeHeld): where it
// stands, and whether it is intact (the next run continues it: exit code 4) or stopped by
// a real error (an edit by someone else, a refused write: exit code 1).
type HeldError struct {
	// Err is the cause.
	Err error
	// Intact: interrupted, the API server unreachable beyond the retries, or the lease
	// lapsed; nothing but drive's own writes happened.
	Intact bool
	// Step of Steps is where the drive stands (steps done, as the drive state records
	// them); Phase is forward or abort; PlanID names it.
	Step, Steps int
	Phase       Phase
	PlanID      string
	// InStep is the step that was under way when the run ended, when some of its
	// ReplicaSet writes landed (Landed: "created web-6d4f with 3 replicas", "scaled down
	// web-5c9b from 10 to 8"); 0 otherwise. The drive state records a step once it is done,
	// so it still says Step: the next run reads the ReplicaSets and reconciles the step.
	InStep int
	Landed []string
	// Released: the lease was released. Otherwise it lapses at LeaseExpires, and a run
	// before that needs --force.
	Released     bool
	LeaseExpires *time.Time
}

func (e *HeldError) Error() string { return e.Err.Error() }
func (e *HeldError) Unwrap() error { return e.Err }

// pendingReplicas writes the desired spec.replicas of a change once the new ReplicaSet
// exists (see takeover).
func (d *Driver) pendingReplicas(ctx context.Context) error {
	s, _, dep := d.held.snapshot()
	if !s.PendingReplicas {
		return nil
	}
	err := d.writeState(ctx, func(s *State) {
		s.PendingReplicas = false
	}, jsonpatch.Test("/metadata/generation", dep.Generation), jsonpatch.Replace("/spec/replicas", s.Replicas))
	if errors.Is(err, kube.ErrGuard) {
		return errReplan
	}
	if err != nil {
		return err
	}
	d.out.linef("set spec.replicas of %s to %d (the change's replicas, written once the new ReplicaSet exists)", d.ref(), s.Replicas)
	d.ev.Eventf(d.deployment(), corev1.EventTypeNormal, ReasonReplan, "Set spec.replicas to %d, as the change asks", s.Replicas)
	return nil
}

// startAbort turns the held drive into an abort: walk back to the previous ReplicaSet.
func (d *Driver) startAbort(ctx context.Context) error {
	snap, err := d.read(ctx)
	if err != nil {
		return err
	}
	s := d.held.state()
	prev := s.PreviousReplicaSet
	if prev == "" || snap.ReplicaSet(prev) == nil {
		return &StoppedError{Msg: fmt.Sprintf("%s: no previous ReplicaSet to walk back to (%q): hand it back with kubectl rollplan resume", d.ref(), prev)}
	}
	if err := d.writeState(ctx, func(s *State) { s.Phase, s.Step, s.Steps = PhaseAbort, 0, 0 }); err != nil {
		return err
	}
	d.stepDone()
	d.out.linef("aborting the drive of %s: walking back to %s", d.ref(), prev)
	d.ev.Eventf(d.deployment(), corev1.EventTypeNormal, ReasonAbort, "Abort: walking back from %s to %s", s.NewReplicaSet, prev)
	return nil
}
