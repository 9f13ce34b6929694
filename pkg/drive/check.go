package drive

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/deployutil"
	"github.com/rollplan/kubectl-rollplan/pkg/jsonpatch"
	"github.com/rollplan/kubectl-rollplan/pkg/kube"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// check compares a fresh read with what the driver holds: the hold itself, the spec fields
// drive owns while it holds (paused, strategy, template), spec.replicas (a change is
// followed: re-plan), and every ReplicaSet's replicas (a change by someone else stops the
// drive). It never overwrites what it finds.
func (d *Driver) check(ctx context.Context, snap *Snapshot) error {
	mine := d.held.state()
	s := snap.State
	if s == nil || s.PlanID != mine.PlanID || (s.Holder != "" && s.Holder != d.identity) {
		return &StoppedError{Lost: true, Msg: fmt.Sprintf("%s: %v: %s; this driver stopped without writing", d.ref(), errLostHold, describeHolder(s))}
	}
	dep := snap.Deployment
	d.held.observe(dep) // a fresh read: writes predict the generation from it
	if edits := specEdits(dep, snap, s); len(edits) > 0 {
		msg := fmt.Sprintf("%s was edited while drive held it: %s. Drive stopped without writing; the Deployment stays held. Review the edit, then `kubectl rollplan resume deploy/%s` hands it back to the controller, or `kubectl rollplan abort deploy/%s` walks back",
			d.ref(), strings.Join(edits, "; "), d.opts.Name, d.opts.Name)
		if !dep.Spec.Paused && dep.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType {
			msg += " (it was unpaused with strategy Recreate: the controller is now replacing every pod at once; install the guard: kubectl rollplan guard install)"
		}
		return &StoppedError{Msg: msg}
	}
	if err := d.followReplicas(ctx, dep, s); err != nil {
		return err
	}
	return d.checkReplicaSets(snap)
}

// specEdits lists the edits of fields drive holds.
func specEdits(dep *appsv1.Deployment, snap *Snapshot, s *State) []string {
	var edits []string
	if !dep.Spec.Paused {
		edits = append(edits, "spec.paused is false")
	}
	if dep.Spec.Strategy.Type != appsv1.RecreateDeploymentStrategyType {
		edits = append(edits, fmt.Sprintf("spec.strategy.type is %s", dep.Spec.Strategy.Type))
	}
	if rs := snap.ReplicaSet(s.NewReplicaSet); rs != nil {
		if !deployutil.EqualIgnoreHash(&rs.Spec.Template, &dep.Spec.Template) {
			edits = append(edits, fmt.Sprintf("spec.template no longer matches the new ReplicaSet %s", rs.Name))
		}
	} else if h := planner.ComputeHash(&dep.Spec.Template, dep.Status.CollisionCount); h != s.TargetHash {
		edits = append(edits, fmt.Sprintf("spec.template changed (hash %s, drive rolls out %s)", h, s.TargetHash))
	}
	if l := dep.Spec.RevisionHistoryLimit; l != nil && *l == 0 {
		edits = append(edits, "spec.revisionHistoryLimit is 0 (the paused controller would delete the ReplicaSet abort walks back to)")
	}
	if ptr.Deref(dep.Spec.Replicas, 1) < 1 {
		edits = append(edits, "spec.replicas is 0")
	}
	return edits
}

// followReplicas re-plans for a spec.replicas changed while held (kubectl scale, an HPA):
// the paused controller with two active ReplicaSets and strategy Recreate ignores it, so the
// driver follows it. Other spec edits that drive does not hold (minReadySeconds,
// progressDeadlineSeconds ...) are noted.
func (d *Driver) followReplicas(ctx context.Context, dep *appsv1.Deployment, s *State) error {
	r := ptr.Deref(dep.Spec.Replicas, 1)
	switch {
	case s.PendingReplicas:
		return nil
	case r != s.Replicas:
		b, err := ResolveBounds(r, s.OriginalStrategy)
		if err != nil {
			return &StoppedError{Msg: fmt.Sprintf("%s: spec.replicas changed to %d: %v", d.ref(), r, err)}
		}
		err = d.writeState(ctx, func(s *State) {
			s.Replicas, s.MaxSurge, s.MaxUnavailable = b.Replicas, b.MaxSurge, b.MaxUnavailable
		}, jsonpatch.Test("/metadata/generation", dep.Generation))
		if errors.Is(err, kube.ErrGuard) {
			return errReplan
		}
		if err != nil {
			return err
		}
		d.out.emit(Event{Kind: EventReplanned, Ref: d.ref(), From: int64(s.Replicas), To: int64(r), MaxPods: b.MaxPods(), MinAvailable: b.MinAvailable()})
		d.ev.Eventf(dep, corev1.EventTypeNormal, ReasonReplan, "spec.replicas changed from %d to %d while held: re-planned (at most %d pods, at least %d available)", s.Replicas, r, b.MaxPods(), b.MinAvailable())
	case dep.Generation != s.Generation:
		err := d.writeState(ctx, func(*State) {}, jsonpatch.Test("/metadata/generation", dep.Generation))
		if errors.Is(err, kube.ErrGuard) {
			return errReplan
		}
		if err != nil {
			return err
		}
		d.out.emit(Event{Kind: EventSpecDrift, Ref: d.ref(), From: s.Generation, To: dep.Generation})
	}
	return nil
}

// checkReplicaSets stops the drive when a ReplicaSet's replicas are not what the driver
// last saw or wrote.
func (d *Driver) checkReplicaSets(snap *Snapshot) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	for name, want := range d.lastWritten {
		rs := snap.ReplicaSet(name)
		if rs == nil {
			if want > 0 {
				return &StoppedError{Msg: fmt.Sprintf("%s: ReplicaSet %s (%d replicas) was deleted while drive held the Deployment: stopped without writing", d.ref(), name, want)}
			}
			delete(d.lastWritten, name)
			continue
		}
		if got := replicas(rs); got != want {
			by := replicasManager(rs)
			if by == "" {
				by = "someone else"
			}
			return &StoppedError{Msg: fmt.Sprintf("%s: ReplicaSet %s has spec.replicas %d, drive last saw %d: it was scaled by %s while drive held the Deployment. Drive stopped without writing; the Deployment stays held (`kubectl rollplan drive status deploy/%s`)",
				d.ref(), name, got, want, by, d.opts.Name)}
		}
	}
	for _, rs := range snap.ReplicaSets {
		if _, ok := d.lastWritten[rs.Name]; !ok {
			d.lastWritten[rs.Name] = replicas(rs)
		}
	}
	return nil
}

// replicasManager names the field manager that last set rs's spec.replicas, from its
// managed fields ("" when unknown).
func replicasManager(rs *appsv1.ReplicaSet) string {
	var who string
	var when time.Time
	for _, mf := range rs.ManagedFields {
		if mf.FieldsV1 == nil {
			continue
		}
		var fields map[string]map[string]any
		if json.Unmarshal(mf.FieldsV1.Raw, &fields) != nil {
			continue
		}
		if _, ok := fields["f:spec"]["f:replicas"]; !ok {
			continue
		}
		t := time.Time{}
		if mf.Time != nil {
			t = mf.Time.Time
		}
		if who == "" || !t.Before(when) {
			who, when = fmt.Sprintf("%s (%s)", mf.Manager, mf.Operation), t
		}
	}
	return who
}
