package reloadcontroller

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/rollplan/kubectl-rollplan/pkg/reload"
	"github.com/rollplan/kubectl-rollplan/pkg/workload"
)

// syncKind is sync for a StatefulSet or DaemonSet key (kindKey): reload.DecideWorkload
// over the cached ConfigMaps and Secrets, then kindAction: refuse (Warning Event, once),
// adopt at first sight (reload.WorkloadAdoptPatch), or restart a stale one
// (reload.WorkloadRestartPatch, guarded by uid, generation and the annotation's value) and
// wait for its rollout as kubectl's status viewer judges it. The same Events, lines and
// metrics as a Deployment's, Outcome.Resource naming the kind.
func (c *Controller) syncKind(ctx context.Context, key, kind, nsName string) error {
	since, hadChange := c.takePending(key)
	if hadChange {
		c.metrics.changesProcessed.Inc()
	}
	w, ok := c.kinds.get(kind, nsName)
	if !ok || !reload.OptedInWorkload(w) {
		c.forget(key)
		return nil
	}
	dec := c.decideWorkload(w)
	m := w.Meta()
	switch kindAction(dec) {
	case reload.ActionRefuse:
		c.reportRefusal(key, w.Object(), resourceOf(w), m.GetNamespace(), m.GetName(), dec)
		return nil
	case reload.ActionAdopt:
		c.clearRefusal(key)
		return c.writeKind(ctx, w, dec, false)
	case reload.ActionRestart:
		c.clearRefusal(key)
		if err := c.writeKind(ctx, w, dec, true); err != nil {
			if hadChange {
				c.markPending(key, since)
			}
			return err
		}
		if hadChange {
			c.metrics.latency.Observe(c.now().Sub(since).Seconds())
		}
		return c.waitKindRollout(ctx, key, kind, nsName, m.GetUID())
	}
	c.clearRefusal(key)
	return nil
}

// kindAction is the one-shot command's rule for these kinds (reloadoneshot.chooseKind):
// refused first; first sight adopts (no pod-age evidence is taken for these kinds); a
// changed checksum restarts.
func kindAction(d reload.Decision) reload.Action {
	switch {
	case d.Refused():
		return reload.ActionRefuse
	case d.FirstSight():
		return reload.ActionAdopt
	case d.Stale:
		return reload.ActionRestart
	}
	return reload.ActionNone
}

// decideWorkload is reload.DecideWorkload of w over the cached objects it references.
func (c *Controller) decideWorkload(w workload.Workload) reload.Decision {
	ns := w.Meta().GetNamespace()
	objects := map[reload.ObjectKey]reload.Object{}
	for _, r := range reload.References(w.Template()) {
		if o := c.informers.object(ns, r.Kind, r.Name); o != nil {
			objects[reload.ObjectKey{Namespace: ns, Kind: r.Kind, Name: r.Name}] = o.Object
		}
	}
	return reload.DecideWorkload(w, objects)
}

// writeKind sends the restart (restart true) or adopt patch of dec for w under the field
// manager, then records the Event and reports the outcome. Errors: building or sending the
// patch (a failed guard: the object changed; the queue retries with the new one).
func (c *Controller) writeKind(ctx context.Context, w workload.Workload, dec reload.Decision, restart bool) error {
	build, verb := reload.WorkloadAdoptPatch, "adopt"
	if restart {
		build, verb = reload.WorkloadRestartPatch, "restart"
	}
	m := w.Meta()
	body, err := build(w, dec.Checksums)
	if err != nil {
		return err
	}
	po := metav1.PatchOptions{FieldManager: c.writeOptions().FieldManager}
	var out runtime.Object
	if w.StatefulSet != nil {
		out, err = c.client.AppsV1().StatefulSets(m.GetNamespace()).Patch(ctx, m.GetName(), types.JSONPatchType, body, po)
	} else {
		out, err = c.client.AppsV1().DaemonSets(m.GetNamespace()).Patch(ctx, m.GetName(), types.JSONPatchType, body, po)
	}
	if err != nil {
		return fmt.Errorf("%s %s %s/%s: %w", verb, resourceOf(w), m.GetNamespace(), m.GetName(), err)
	}
	c.metrics.annotationUpdates.WithLabelValues(string(w.Kind())).Inc()
	o := Outcome{Type: Adopted, Resource: resourceOf(w), Namespace: m.GetNamespace(), Name: m.GetName(), Message: adoptMessage(unrecordedRefs(dec))}
	reason := ReasonAdopted
	if restart {
		c.metrics.restarts.WithLabelValues(string(w.Kind())).Inc()
		o.Type, o.Message, reason = Restarted, restartMessage(changedRefs(dec)), ReasonRestarted
	}
	c.cfg.Recorder.Eventf(out, corev1.EventTypeNormal, reason, "%s", o.Message)
	c.report(o)
	return nil
}

// waitKindRollout holds the worker until kubectl's StatefulSet or DaemonSet status viewer
// (workload.Status) says the restart's rollout is complete, as waitRollout does for a
// Deployment: RolloutTimeout or the viewer's error (OnDelete) give a Warning Event and a
// line, no error; a deleted or replaced object ends the wait.
func (c *Controller) waitKindRollout(ctx context.Context, key, kind, nsName string, uid types.UID) error {
	woken, done := c.waiter.register(key)
	defer done()
	timeout := time.NewTimer(c.cfg.RolloutTimeout)
	defer timeout.Stop()
	for {
		w, ok := c.kinds.get(kind, nsName)
		if !ok || w.Meta().GetUID() != uid {
			return nil
		}
		v, err := workload.Status(w)
		if err != nil {
			return err
		}
		if v.Done {
			if v.Err != nil {
				c.kindRolloutFailed(w, v.Err.Error())
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-timeout.C:
			c.kindRolloutFailed(w, "not complete after "+c.cfg.RolloutTimeout.String()+" (--timeout); going on with the next restart")
			return nil
		case <-woken:
		}
	}
}

func (c *Controller) kindRolloutFailed(w workload.Workload, why string) {
	c.metrics.rolloutsFailed.WithLabelValues(string(w.Kind())).Inc()
	msg := "rollout of the config restart did not complete: " + why
	c.cfg.Recorder.Eventf(w.Object(), corev1.EventTypeWarning, ReasonRolloutFailed, "%s", msg)
	m := w.Meta()
	c.report(Outcome{Type: RolloutFailed, Resource: resourceOf(w), Namespace: m.GetNamespace(), Name: m.GetName(), Message: msg})
}
