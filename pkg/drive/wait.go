package drive

import (
	"context"
	"errors"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/stall"
	"github.com/rollplan/kubectl-rollplan/pkg/watch"
)

// waitScaledDown waits (watch) until every ReplicaSet but target has no more pods than its
// spec.replicas, as its status reports them once the ReplicaSet controller has seen the
// driver's last write (status.replicas does not count terminating pods).
func (d *Driver) waitScaledDown(ctx context.Context, target string, number, of int) error {
	var waitingFor string
	cond := func() (bool, error) {
		if err := d.interrupted(); err != nil {
			return false, err
		}
		d.mu.Lock()
		defer d.mu.Unlock()
		for name := range d.lastWritten {
			rs := d.view.ReplicaSet(name)
			if name == target || rs == nil {
				continue
			}
			if rs.Generation < d.written[name] || rs.Status.ObservedGeneration < rs.Generation || rs.Status.Replicas > replicas(rs) {
				waitingFor = fmt.Sprintf("%s has %d pods, %d wanted", name, rs.Status.Replicas, replicas(rs))
				return false, nil
			}
		}
		return true, nil
	}
	tick := func(w time.Duration) {
		d.out.emit(Event{Kind: EventWaitingOldPods, Step: number, Steps: of, Message: waitingFor, Duration: w})
	}
	err := d.view.Wait(ctx, d.progressTimeout(), cond, tick)
	if errors.Is(err, watch.ErrTimeout) {
		return &stepTimeout{msg: fmt.Sprintf("old pods are not going away: %s", waitingFor)}
	}
	return err
}

// waitAvailable waits (watch) until ReplicaSet name, at generation gen or later, reports
// want available pods, or something changes that needs a re-plan.
func (d *Driver) waitAvailable(ctx context.Context, name string, gen int64, want int32, number, of int, began time.Time) error {
	timeout := d.progressTimeout()
	var have int32
	diagnosed := d.now() // the first read 2 s into the wait: a healthy step costs none
	cond := func() (bool, error) {
		if err := d.interrupted(); err != nil {
			return false, err
		}
		rs := d.view.ReplicaSet(name)
		if rs == nil {
			return false, nil
		}
		have = rs.Status.AvailableReplicas
		done := rs.Generation >= gen && rs.Status.ObservedGeneration >= rs.Generation && have >= want
		if done || !d.opts.FailFast || d.now().Sub(diagnosed) < stallEvery {
			return done, nil
		}
		diagnosed = d.now()
		if why := d.stalled(ctx, rs); len(stall.Stuck(why, d.now(), d.opts.FailFastAfter)) > 0 {
			return false, &stepTimeout{rs: name, want: want, have: have, waited: d.now().Sub(began), failFast: d.opts.FailFastAfter,
				stall: why, pods: d.unavailablePods(ctx, name)}
		}
		return false, nil
	}
	tick := func(waited time.Duration) {
		d.out.emit(Event{Kind: EventWaitingAvailable, Step: number, Steps: of, ReplicaSet: name, Available: have, Want: want, Duration: waited})
	}
	err := d.view.Wait(ctx, timeout, cond, tick)
	if errors.Is(err, watch.ErrTimeout) {
		return &stepTimeout{rs: name, want: want, have: have, waited: d.now().Sub(began), pods: d.unavailablePods(ctx, name),
			stall: d.stalled(ctx, d.view.ReplicaSet(name))}
	}
	return err
}

// stallEvery is how often a --fail-fast wait reads why its pods are not available.
const stallEvery = 2 * time.Second

// stalled says why rs's pods are not available (stall.Read: one LIST of its pods, events
// and nodes only when needed; stall.Diagnose), nil when it cannot tell.
func (d *Driver) stalled(ctx context.Context, rs *appsv1.ReplicaSet) []stall.Reason {
	if rs == nil {
		return nil
	}
	in, err := stall.Read(ctx, d.client, rs, nil)
	if err != nil {
		return nil
	}
	return stall.Diagnose(in, d.now())
}

// progressTimeout is --progress-timeout, or the Deployment's progressDeadlineSeconds
// (600 s when unset).
func (d *Driver) progressTimeout() time.Duration {
	if d.opts.ProgressTimeout > 0 {
		return d.opts.ProgressTimeout
	}
	if dep := d.deployment(); dep != nil && dep.Spec.ProgressDeadlineSeconds != nil {
		return time.Duration(*dep.Spec.ProgressDeadlineSeconds) * time.Second
	}
	return 600 * time.Second
}

// ownGeneration reports whether dep's generation is the one this driver's last state write
// gave it: the drive state cur (dep's annotation) is held by identity and records that
// generation (a state write records the generation it will make, as the API server bumps it
// once per annotation change). The watch can show a renewal before its answer is stored in
// the held state; a change by anyone else after it moves the generation past the recorded
// one.
func ownGeneration(dep *appsv1.Deployment, cur *State, identity string) bool {
	return cur.Holder == identity && cur.Generation == dep.Generation
}

// interrupted checks the watched Deployment and ReplicaSets for a change that needs the
// loop to read and re-plan: a spec edit, a replicas change, the hold lost, a ReplicaSet
// scaled by someone else.
func (d *Driver) interrupted() error {
	dep := d.view.Deployment(d.opts.Name)
	if dep == nil {
		return errReplan
	}
	s := d.held.state()
	if ptr.Deref(dep.Spec.Replicas, 1) != s.Replicas {
		return errReplan
	}
	cur, err := ReadState(dep)
	if err != nil || cur == nil || cur.PlanID != s.PlanID || (cur.Holder != "" && cur.Holder != d.identity) {
		return errReplan
	}
	if dep.Generation > s.Generation && !ownGeneration(dep, cur, d.identity) {
		return errReplan
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for name, want := range d.lastWritten {
		rs := d.view.ReplicaSet(name)
		if rs != nil && replicas(rs) != want && rs.Generation >= d.written[name] {
			return errReplan
		}
	}
	return nil
}
