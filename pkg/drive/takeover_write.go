package drive

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/kube"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/watch"
)

// takeover makes the one guarded write that takes the rollout over: spec.paused true,
// strategy Recreate (rollingUpdate null), the new template, and the drive state with the
// original strategy and paused value. spec.replicas keeps its live value until the new
// ReplicaSet exists (a lone active ReplicaSet would be scaled by the paused controller).
// A conflict caused only by the controller's status writes is retried; one caused by a
// spec or annotation edit stops the drive. Then it waits for the controller to observe the
// takeover, takes the ReplicaSets as the baseline, and follows a template admission changed.
func (d *Driver) takeover(ctx context.Context, tk *Takeover) error {
	st := d.takeoverState(tk)
	out, val, err := d.writeTakeover(ctx, tk, st)
	if err != nil {
		return err
	}
	d.held.set(st, val, out)
	dep := d.deployment()
	d.out.emit(Event{Kind: EventTookOver, Ref: d.ref(), Strategy: describeStrategy(st.OriginalStrategy), ReplicaSet: st.NewReplicaSet, Revision: strconv.FormatInt(st.Revision, 10)})
	d.ev.Eventf(dep, corev1.EventTypeNormal, ReasonTakeover, "Took over the rollout to %s (revision %d): paused, strategy Recreate; original strategy %s kept in %s (plan %s, %s)",
		st.NewReplicaSet, st.Revision, describeStrategy(st.OriginalStrategy), Annotation, st.PlanID, d.identity)
	// A sync the controller began before it saw the takeover may still write: wait until it
	// has observed it, then take the ReplicaSets as they are as the baseline.
	if err := d.waitObserved(ctx, dep.Generation); err != nil {
		return err
	}
	if err := d.takeBaseline(ctx, st.NewReplicaSet); err != nil {
		return err
	}
	// The hash is the one of the template the API server stored: if admission changed the
	// template, follow it.
	if tk.Reuse == nil {
		hash := planner.ComputeHash(&dep.Spec.Template, dep.Status.CollisionCount)
		if hash != st.TargetHash {
			name := planner.ReplicaSetName(dep.Name, hash)
			d.out.emit(Event{Kind: EventAdmissionChanged, ReplicaSet: name, Previous: st.NewReplicaSet})
			if err := d.writeState(ctx, func(s *State) { s.TargetHash, s.NewReplicaSet = hash, name }); err != nil {
				return err
			}
		}
	}
	return nil
}

// takeoverState is the drive state the takeover writes, holding a fresh lease.
func (d *Driver) takeoverState(tk *Takeover) *State {
	now := d.now().UTC()
	exp := now.Add(d.lease)
	prev := ""
	if tk.Previous != nil {
		prev = tk.Previous.Name
	}
	return &State{
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
}

// takeBaseline reads the ReplicaSets after the takeover and takes their replicas as what
// the driver last saw; it removes stale copies of the drive annotation from any but target.
func (d *Driver) takeBaseline(ctx context.Context, target string) error {
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
		if v, ok := rs.Annotations[Annotation]; ok && v != d.held.annValue() && rs.Name != target {
			stale = append(stale, rs)
		}
	}
	if err := tidyReplicaSets(ctx, d.client, stale, "", nil, d.writes()); err != nil {
		d.out.emit(Event{Kind: EventStaleCopiesFailed, Err: err})
	}
	return nil
}

// writeTakeover makes the takeover write of st on tk.Live and returns the Deployment stored
// and the annotation's value. A conflict caused only by the controller's status (or
// metadata) writes is retried on the fresh Deployment within kube's retry policy
// (kube.RetryOnConflict); a spec edit, or another drive's hold, stops with a StoppedError
// and nothing written.
func (d *Driver) writeTakeover(ctx context.Context, tk *Takeover, st *State) (*appsv1.Deployment, string, error) {
	live := tk.Live
	var out *appsv1.Deployment
	var val string
	var final error // an error returned as it is, not as a failed write
	err := kube.RetryOnConflict(func() error {
		st.PendingReplicas = ptr.Deref(live.Spec.Replicas, 1) != st.Replicas
		st.Generation = live.Generation + 1
		var err error
		if val, err = st.Encode(); err != nil {
			final = err
			return kube.Stop(err)
		}
		err = d.retry(ctx, "take over "+d.ref(), func(ctx context.Context, retried bool) error {
			var err error
			if out, err = kube.UpdateDeployment(ctx, d.client, takeoverObject(tk.Desired, live, val), d.writes()); err != nil {
				// Sent again after a lost answer, the resourceVersion conflicts: done if
				// the Deployment carries this takeover's state.
				out, err = kube.Applied(ctx, retried, err, d.getDeploymentOnce, func(now *appsv1.Deployment) bool {
					return now.Annotations[Annotation] == val
				})
			}
			return err
		})
		if !apierrors.IsConflict(err) {
			return kube.Stop(err)
		}
		fresh, gerr := d.getDeployment(ctx)
		if gerr != nil {
			return kube.Stop(gerr)
		}
		if fresh.Generation != live.Generation || IsHeld(fresh) {
			final = &StoppedError{Msg: fmt.Sprintf("%s changed while drive was preparing (generation %d -> %d%s): nothing was written; run drive again to plan from the new state",
				d.ref(), live.Generation, fresh.Generation, heldNote(fresh))}
			return kube.Stop(final)
		}
		live = fresh // only status or metadata changed: retry on the fresh object
		return err
	})
	switch {
	case final != nil:
		return nil, "", final
	case err != nil:
		return nil, "", fmt.Errorf("take over %s: %w", d.ref(), err)
	}
	return out, val, nil
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
	if _, err := kube.UpdateDeployment(ctx, client, upd, kube.Options{FieldManager: kube.FieldManager, DryRun: true}); err != nil {
		return fmt.Errorf("server-side dry run of the takeover of deployment %s/%s: %w", upd.Namespace, upd.Name, err)
	}
	return nil
}

// waitObserved waits (watch) until the controller reports status.observedGeneration >= gen.
// A cluster whose deployment controller does not run never does: after 15 s it goes on with
// a warning.
func (d *Driver) waitObserved(ctx context.Context, gen int64) error {
	err := d.view.Wait(ctx, 15*time.Second, func() (bool, error) {
		dep := d.view.Deployment(d.opts.Name)
		return dep != nil && dep.Status.ObservedGeneration >= gen, nil
	}, nil)
	if errors.Is(err, watch.ErrTimeout) {
		d.out.emit(Event{Kind: EventNotObserved, Ref: d.ref()})
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
