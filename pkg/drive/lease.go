package drive

import (
	"context"
	"errors"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// takeover makes the one guarded write that takes the rollout over: spec.paused true,
// strategy Recreate (rollingUpdate null), the new template, and the drive state with the
// original strategy and paused value. spec.replicas keeps its live value until the new
// ReplicaSet exists (a lone active ReplicaSet would be scaled by the paused controller).
// A conflict caused only by the controller's status writes is retried; one caused by a
// spec or annotation edit stops the drive.
func (d *Driver) takeover(ctx context.Context, tk *Takeover) error {
	live := tk.Live
	now := d.now().UTC()
	exp := now.Add(d.lease)
	prev := ""
	if tk.Previous != nil {
		prev = tk.Previous.Name
	}
	st := &State{
		Version:            StateVersion,
		PlanID:             randomHex(6),
		Phase:              PhaseForward,
		OriginalStrategy:   *tk.Desired.Spec.Strategy.DeepCopy(),
		OriginalPaused:     tk.Desired.Spec.Paused,
		TargetHash:         tk.TargetHash,
		NewReplicaSet:      tk.NewName,
		PreviousReplicaSet: prev,
		Revision:           tk.Revision,
		Replicas:           tk.Bounds.Replicas,
		MaxSurge:           tk.Bounds.MaxSurge,
		MaxUnavailable:     tk.Bounds.MaxUnavailable,
		Steps:              len(tk.Steps),
		Holder:             d.identity,
		LeaseExpires:       &exp,
		LastHolder:         d.identity,
		StartedAt:          now,
		UpdatedAt:          now,
		Adopted:            tk.Adopted,
	}
	for attempt := 0; ; attempt++ {
		st.PendingReplicas = ptrDeref(live.Spec.Replicas, 1) != st.Replicas
		st.Generation = live.Generation + 1
		val, err := st.Encode()
		if err != nil {
			return err
		}
		upd := takeoverObject(tk.Desired, live, val)
		out, err := d.client.AppsV1().Deployments(live.Namespace).Update(ctx, upd, metav1.UpdateOptions{FieldManager: FieldManager})
		if err == nil {
			d.mu.Lock()
			d.state, d.annValue, d.dep = st, val, out
			d.mu.Unlock()
			break
		}
		if !apierrors.IsConflict(err) || attempt >= 4 {
			return fmt.Errorf("take over %s: %w", d.ref(), err)
		}
		fresh, gerr := d.client.AppsV1().Deployments(live.Namespace).Get(ctx, live.Name, metav1.GetOptions{})
		if gerr != nil {
			return fmt.Errorf("take over %s: %w", d.ref(), gerr)
		}
		if fresh.Generation != live.Generation || IsHeld(fresh) {
			return &StoppedError{Msg: fmt.Sprintf("%s changed while drive was preparing (generation %d -> %d%s): nothing was written; run drive again to plan from the new state",
				d.ref(), live.Generation, fresh.Generation, heldNote(fresh))}
		}
		live = fresh // only status or metadata changed: retry on the fresh object
	}
	dep := d.deployment()
	d.out.linef("took over %s: paused, strategy Recreate (original %s kept in annotation %s); new ReplicaSet %s, revision %d",
		d.ref(), describeStrategy(st.OriginalStrategy), Annotation, st.NewReplicaSet, st.Revision)
	d.ev.emit(ctx, dep, corev1.EventTypeNormal, ReasonTakeover, "Took over the rollout to %s (revision %d): paused, strategy Recreate; original strategy %s kept in %s (plan %s, %s)",
		st.NewReplicaSet, st.Revision, describeStrategy(st.OriginalStrategy), Annotation, st.PlanID, d.identity)
	// A sync the controller began before it saw the takeover may still write: wait until it
	// has observed it, then take the ReplicaSets as they are as the baseline.
	if err := d.waitObserved(ctx, dep.Generation); err != nil {
		return err
	}
	snap, err := d.read(ctx)
	if err != nil {
		return err
	}
	d.mu.Lock()
	for _, rs := range snap.ReplicaSets {
		d.lastWritten[rs.Name] = replicas(rs)
	}
	d.mu.Unlock()
	// A copy of an earlier drive's annotation left on an old ReplicaSet (a driver stopped
	// between its hand-back and its tidy) would come back onto the Deployment with
	// `kubectl rollout undo` to that revision: remove it.
	var stale []*appsv1.ReplicaSet
	for _, rs := range snap.ReplicaSets {
		if v, ok := rs.Annotations[Annotation]; ok && v != d.annValue && rs.Name != st.NewReplicaSet {
			stale = append(stale, rs)
		}
	}
	if err := tidyReplicaSets(ctx, d.client, stale, "", nil); err != nil {
		d.out.linef("warning: remove stale copies of %s: %v", Annotation, err)
	}
	// The hash is the one of the template the API server stored: if admission changed the
	// template, follow it.
	if tk.Reuse == nil {
		hash := planner.ComputeHash(&dep.Spec.Template, dep.Status.CollisionCount)
		if hash != st.TargetHash {
			name := planner.ReplicaSetName(dep.Name, hash)
			d.out.linef("the API server changed the template (admission): new ReplicaSet %s instead of %s", name, st.NewReplicaSet)
			if err := d.writeState(ctx, func(s *State) { s.TargetHash, s.NewReplicaSet = hash, name }); err != nil {
				return err
			}
		}
	}
	return nil
}

// takeoverObject is the takeover write: desired, guarded by live's resourceVersion, paused,
// with strategy Recreate (rollingUpdate null), live's spec.replicas and the drive state.
func takeoverObject(desired, live *appsv1.Deployment, state string) *appsv1.Deployment {
	upd := desired.DeepCopy()
	upd.ResourceVersion = live.ResourceVersion
	upd.Spec.Replicas = live.Spec.Replicas
	upd.Spec.Paused = true
	upd.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	if upd.Annotations == nil {
		upd.Annotations = map[string]string{}
	}
	upd.Annotations[Annotation] = state
	return upd
}

// DryRunTakeover sends the takeover write of tk with dryRun=All: validation and admission
// (the guard, webhooks) run, nothing is stored.
func DryRunTakeover(ctx context.Context, client kubernetes.Interface, tk *Takeover) error {
	st := &State{Version: StateVersion, PlanID: "dry-run", Phase: PhaseForward, OriginalStrategy: tk.Desired.Spec.Strategy,
		TargetHash: tk.TargetHash, NewReplicaSet: tk.NewName, Replicas: tk.Bounds.Replicas}
	val, err := st.Encode()
	if err != nil {
		return err
	}
	upd := takeoverObject(tk.Desired, tk.Live, val)
	if _, err := client.AppsV1().Deployments(upd.Namespace).Update(ctx, upd, metav1.UpdateOptions{FieldManager: FieldManager, DryRun: []string{metav1.DryRunAll}}); err != nil {
		return fmt.Errorf("server-side dry run of the takeover of deployment %s/%s: %w", upd.Namespace, upd.Name, err)
	}
	return nil
}

// waitObserved waits (watch) until the controller reports status.observedGeneration >= gen.
// A cluster whose deployment controller does not run never does: after 15 s it goes on with
// a warning.
func (d *Driver) waitObserved(ctx context.Context, gen int64) error {
	err := d.view.wait(ctx, 15*time.Second, func() (bool, error) {
		dep := d.view.deployment()
		return dep != nil && dep.Status.ObservedGeneration >= gen, nil
	}, nil)
	if errors.Is(err, errTimeout) {
		d.out.linef("warning: the deployment controller has not observed the takeover of %s after 15s (is it running?): going on", d.ref())
		return nil
	}
	return err
}

func heldNote(d *appsv1.Deployment) string {
	if IsHeld(d) {
		return ", and another drive holds it now"
	}
	return ""
}

func describeStrategy(s appsv1.DeploymentStrategy) string {
	if s.Type == appsv1.RollingUpdateDeploymentStrategyType && s.RollingUpdate != nil {
		return fmt.Sprintf("RollingUpdate maxSurge %s maxUnavailable %s", s.RollingUpdate.MaxSurge.String(), s.RollingUpdate.MaxUnavailable.String())
	}
	return string(s.Type)
}

// acquire takes the lease of a held Deployment (guarded by the annotation's value).
func (d *Driver) acquire(ctx context.Context, snap *Snapshot) error {
	s := snap.State
	val := snap.Deployment.Annotations[Annotation]
	d.mu.Lock()
	d.state, d.annValue, d.dep = s, val, snap.Deployment
	d.mu.Unlock()
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
	if errors.Is(err, ErrGuard) {
		return &StoppedError{Msg: fmt.Sprintf("%s: another driver took the lease at the same time: see `kubectl rollplan drive status deploy/%s`", d.ref(), d.opts.Name)}
	}
	if err != nil {
		return err
	}
	if prevHolder != "" {
		d.out.linef("took the lease of %s from %s (--force)", d.ref(), prevHolder)
		d.ev.emit(ctx, d.deployment(), corev1.EventTypeWarning, ReasonLease, "Lease taken from %s by %s (--force)", prevHolder, d.identity)
	}
	d.out.linef("continuing the drive of %s (plan %s, %s step %d of %d, new ReplicaSet %s)", d.ref(), s.PlanID, d.phaseWord(), s.Step, s.Steps, s.NewReplicaSet)
	return nil
}

// writeState rewrites the drive annotation with mutate applied, guarded by a test of the
// annotation's last known value; the lease is renewed by every write the holder makes.
// extra operations ride along in the same patch.
func (d *Driver) writeState(ctx context.Context, mutate func(*State), extra ...patchOp) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	next := *d.state
	mutate(&next)
	// The API server bumps metadata.generation of a Deployment on every annotation change
	// (annotations are copied to the new ReplicaSet), once per write.
	next.Generation = d.dep.Generation + 1
	now := d.now().UTC()
	next.UpdatedAt = now
	if next.Holder == d.identity {
		exp := now.Add(d.lease)
		next.LeaseExpires = &exp
	}
	val, err := next.Encode()
	if err != nil {
		return err
	}
	path := annotationPath(Annotation)
	ops := append([]patchOp{testOp(path, d.annValue), replaceOp(path, val)}, extra...)
	out, err := patchDeployment(ctx, d.client, d.dep, ops)
	if errors.Is(err, ErrGuard) {
		fresh, gerr := d.client.AppsV1().Deployments(d.dep.Namespace).Get(ctx, d.dep.Name, metav1.GetOptions{})
		if gerr == nil {
			if cur, rerr := ReadState(fresh); rerr == nil && (cur == nil || cur.PlanID != next.PlanID || (cur.Holder != "" && cur.Holder != d.identity)) {
				return fmt.Errorf("%w: %s", errLostHold, describeHolder(cur))
			}
		}
		return err
	}
	if err != nil {
		return err
	}
	d.state, d.annValue, d.dep = &next, val, out
	return nil
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
			cancel(fmt.Errorf("%s: could not renew the lease before it expired: %w", d.ref(), err))
			return
		default:
			d.out.linef("warning: renew the lease of %s: %v (retrying)", d.ref(), err)
		}
	}
}

// leaseOK reports an error when this driver's lease has expired (it must not write).
func (d *Driver) leaseOK() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.state == nil || d.state.Holder != d.identity || d.state.LeaseExpires == nil || !d.now().Before(*d.state.LeaseExpires) {
		return fmt.Errorf("%s: the lease of this driver has expired: stopped without writing; run drive again", d.ref())
	}
	return nil
}

// hold releases the lease and leaves the Deployment held, with why.
func (d *Driver) hold(ctx context.Context, reason string) (*Result, error) {
	now := d.now().UTC()
	if err := d.release(ctx, reason, now); err != nil {
		return nil, err
	}
	d.out.linef("holding %s at step %d of %d: %s; run `kubectl rollplan drive deploy/%s` to continue, `kubectl rollplan abort deploy/%s` to walk back, or `kubectl rollplan resume deploy/%s` to hand it back",
		d.ref(), d.state.Step, d.state.Steps, reason, d.opts.Name, d.opts.Name, d.opts.Name)
	d.ev.emit(ctx, d.deployment(), corev1.EventTypeNormal, ReasonHeld, "Held at step %d/%d: %s", d.state.Step, d.state.Steps, reason)
	return &Result{Outcome: OutcomeHeld, Reason: reason, Step: d.state.Step, Steps: d.state.Steps}, nil
}

func (d *Driver) release(ctx context.Context, reason string, now time.Time) error {
	return d.writeState(ctx, func(s *State) {
		s.Holder, s.LeaseExpires, s.LastHolder = "", nil, d.identity
		s.HeldSince, s.HeldReason = &now, reason
	})
}

// stopped releases the lease after an error (best effort) and records why, unless the
// hold was lost; it returns err.
func (d *Driver) stopped(ctx context.Context, err error) error {
	var se *StoppedError
	if d.state == nil || errors.Is(err, errLostHold) || (errors.As(err, &se) && se.Lost) || d.state.Holder != d.identity {
		return err
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if rerr := d.release(wctx, "stopped: "+err.Error(), d.now().UTC()); rerr == nil {
		d.ev.emit(wctx, d.deployment(), corev1.EventTypeWarning, ReasonStopped, "Drive stopped at step %d/%d: %v", d.state.Step, d.state.Steps, err)
	}
	return err
}

// pendingReplicas writes the desired spec.replicas of a change once the new ReplicaSet
// exists (see takeover).
func (d *Driver) pendingReplicas(ctx context.Context) error {
	d.mu.Lock()
	s, dep := d.state, d.dep
	d.mu.Unlock()
	if !s.PendingReplicas {
		return nil
	}
	err := d.writeState(ctx, func(s *State) {
		s.PendingReplicas = false
	}, testOp("/metadata/generation", dep.Generation), replaceOp("/spec/replicas", s.Replicas))
	if errors.Is(err, ErrGuard) {
		return errReplan
	}
	if err != nil {
		return err
	}
	d.out.linef("set spec.replicas of %s to %d (the change's replicas, written once the new ReplicaSet exists)", d.ref(), s.Replicas)
	d.ev.emit(ctx, d.deployment(), corev1.EventTypeNormal, ReasonReplan, "Set spec.replicas to %d, as the change asks", s.Replicas)
	return nil
}

// startAbort turns the held drive into an abort: walk back to the previous ReplicaSet.
func (d *Driver) startAbort(ctx context.Context) error {
	snap, err := d.read(ctx)
	if err != nil {
		return err
	}
	prev := d.state.PreviousReplicaSet
	if prev == "" || snap.ReplicaSet(prev) == nil {
		return &StoppedError{Msg: fmt.Sprintf("%s: no previous ReplicaSet to walk back to (%q): hand it back with kubectl rollplan resume", d.ref(), prev)}
	}
	if err := d.writeState(ctx, func(s *State) { s.Phase, s.Step, s.Steps = PhaseAbort, 0, 0 }); err != nil {
		return err
	}
	d.out.linef("aborting the drive of %s: walking back to %s", d.ref(), prev)
	d.ev.emit(ctx, d.deployment(), corev1.EventTypeNormal, ReasonAbort, "Abort: walking back from %s to %s", d.state.NewReplicaSet, prev)
	return nil
}
