package reloadcontroller

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/rollplan/kubectl-rollplan/pkg/kube"
	"github.com/rollplan/kubectl-rollplan/pkg/reload"
)

// Event reasons of the controller's Events on a Deployment.
const (
	// ReasonRestarted: a restart for changed config (Normal), naming what changed.
	ReasonRestarted = "ConfigReloaded"
	// ReasonRefused: a restart refused because a non-optional reference is missing (Warning).
	ReasonRefused = "ConfigReloadRefused"
	// ReasonRolloutFailed: the restart's rollout did not complete (Warning).
	ReasonRolloutFailed = "ConfigReloadRolloutFailed"
	// ReasonAdopted: checksums recorded at first sight, without a restart (Normal).
	ReasonAdopted = "ConfigAdopted"
)

// sync is the queue's handler for one Deployment key: decide (reload.Decide over the cached
// objects, then the action: watchAction), restart a stale Deployment and wait for its
// rollout, or adopt one seen for the first time. Idempotent: it reads everything from the
// cache. An error requeues key (watch.Queue).
func (c *Controller) sync(ctx context.Context, key string) error {
	if kind, nsName, ok := splitKindKey(key); ok {
		return c.syncKind(ctx, key, kind, nsName)
	}
	since, hadChange := c.takePending(key)
	if hadChange {
		c.metrics.changesProcessed.Inc()
	}
	d := c.informers.deployment(key)
	if d == nil || !reload.OptedIn(d) {
		c.forget(key)
		return nil
	}
	dec, writes := c.decide(d)
	a, note, err := c.firstSight(ctx, d, dec, writes)
	if err != nil {
		return err
	}
	action := watchAction(dec, a)
	if action == reload.ActionRestart && d.Spec.Paused {
		// As the one-shot command (reloadoneshot.Target.Refusal) and kubectl rollout restart: the
		// controller would not roll a paused Deployment out. Resuming it queues it again.
		action = reload.ActionRefuse
		dec.Refusal = reload.PausedRefusal(d)
	}
	if action == reload.ActionRefuse {
		c.reportRefusal(key, d, "", d.Namespace, d.Name, dec)
		return nil
	}
	c.clearRefusal(key)
	switch action {
	case reload.ActionAdopt:
		return c.adopt(ctx, d, dec, note)
	case reload.ActionRestart:
		out, err := c.restart(ctx, d, dec, a)
		if err != nil {
			if hadChange {
				c.markPending(key, since)
			}
			return fmt.Errorf("restart deployment %s: %w", key, err)
		}
		if hadChange {
			c.metrics.latency.Observe(c.now().Sub(since).Seconds())
		}
		return c.waitRollout(ctx, key, out)
	}
	return nil
}

// watchAction is the watch mode's use of reload.Choose: refuse; restart when stale, or at
// first sight when a is possibly stale (the one-shot command's rule: config data written
// after the current pods were created); otherwise at first sight (a reference with no
// recorded checksum) adopt: record the checksums on the Deployment without a restart, as
// XING's controller records its annotation, so that the next change of that content is a
// change even after the watcher was down.
func watchAction(dec reload.Decision, a reload.Assessment) reload.Action {
	if act := reload.Choose(dec, a, false); act != reload.ActionNone {
		return act
	}
	return reload.Choose(dec, a, true)
}

// decide is reload.Decide of d over the cached objects it references, and their last data
// writes keyed by reload.Ref.AnnotationKey (for AssessFirstSight).
func (c *Controller) decide(d *appsv1.Deployment) (reload.Decision, map[string]reload.DataWrite) {
	objects := map[reload.ObjectKey]reload.Object{}
	writes := map[string]reload.DataWrite{}
	for _, r := range reload.References(&d.Spec.Template) {
		if o := c.informers.object(d.Namespace, r.Kind, r.Name); o != nil {
			objects[reload.ObjectKey{Namespace: d.Namespace, Kind: r.Kind, Name: r.Name}] = o.Object
			if o.DataWrite != nil {
				writes[r.AnnotationKey()] = *o.DataWrite
			}
		}
	}
	return reload.Decide(d, objects), writes
}

// adopt records dec's checksums in the Deployment's rollplan.dev/adopted-config-checksums
// annotation (reload.AdoptPatch, guarded by uid and resourceVersion, renewed through pkg/kube
// when only the status moved): no restart.
func (c *Controller) adopt(ctx context.Context, d *appsv1.Deployment, dec reload.Decision, note string) error {
	body, err := reload.AdoptPatch(d, dec.Checksums)
	if err != nil {
		return err
	}
	p := kube.GuardedPatch{Type: types.JSONPatchType, Body: body, ResourceVersion: d.ResourceVersion,
		Renew: func(rv string) ([]byte, error) { return reload.AdoptPatchAt(d, dec.Checksums, rv) }}
	out, err := kube.PatchDeploymentGuarded(ctx, c.client, d, p, c.writeOptions())
	if err != nil {
		return fmt.Errorf("adopt deployment %s/%s: %w", d.Namespace, d.Name, err)
	}
	c.metrics.annotationUpdates.WithLabelValues(deploymentKind).Inc()
	msg := adoptMessage(unrecordedRefs(dec))
	if note != "" {
		msg += " (" + note + ")"
	}
	c.cfg.Recorder.Eventf(out, corev1.EventTypeNormal, ReasonAdopted, "%s", msg)
	c.report(Outcome{Type: Adopted, Namespace: d.Namespace, Name: d.Name, Message: msg})
	return nil
}

// unrecordedRefs names the references dec has no checksum for (Ref.String).
func unrecordedRefs(dec reload.Decision) []string {
	var out []string
	for _, s := range dec.Refs {
		if s.State == reload.Unrecorded {
			out = append(out, s.Ref.String())
		}
	}
	return out
}

// restart sends reload.RestartPatch of dec through pkg/kube (one guarded JSON patch of the
// template annotation, field manager Config.FieldManager), then records the Event and the
// line: what changed, or at first sight a's evidence ("possibly stale since T: ...").
func (c *Controller) restart(ctx context.Context, d *appsv1.Deployment, dec reload.Decision, a reload.Assessment) (*appsv1.Deployment, error) {
	body, err := reload.RestartPatch(d, dec.Checksums)
	if err != nil {
		return nil, err
	}
	out, err := kube.PatchDeploymentGuarded(ctx, c.client, d, kube.GuardedPatch{Type: types.JSONPatchType, Body: body, ResourceVersion: d.ResourceVersion}, c.writeOptions())
	if err != nil {
		return nil, err
	}
	c.metrics.annotationUpdates.WithLabelValues(deploymentKind).Inc()
	c.metrics.restarts.WithLabelValues(deploymentKind).Inc()
	changed := changedRefs(dec)
	msg := restartMessage(changed)
	if len(changed) == 0 && a.PossiblyStale {
		msg = firstSightRestartMessage(a.Summary())
	}
	c.cfg.Recorder.Eventf(out, corev1.EventTypeNormal, ReasonRestarted, "%s", msg)
	c.report(Outcome{Type: Restarted, Namespace: d.Namespace, Name: d.Name, Message: msg})
	return out, nil
}

// changedRefs names the references that made dec stale: changed ones, and optional ones
// gone missing (Ref.String: kind, name and keys, never a value).
func changedRefs(dec reload.Decision) []string {
	var out []string
	for _, s := range dec.Refs {
		if s.State == reload.Changed || (s.State == reload.Missing && s.Recorded != "" && s.Recorded != reload.AbsentChecksum) {
			out = append(out, s.Ref.String())
		}
	}
	return out
}

// reportRefusal records a Warning Event and a line for a refusal, once per distinct refusal
// of an object (a status update re-syncs it without repeating them); resource is
// Outcome.Resource.
func (c *Controller) reportRefusal(key string, obj runtime.Object, resource, namespace, name string, dec reload.Decision) {
	msg := dec.Refusal.Error()
	c.mu.Lock()
	same := c.refused[key] == msg
	c.refused[key] = msg
	c.mu.Unlock()
	if same {
		return
	}
	c.metrics.refusals.WithLabelValues(kindOfResource(resource)).Inc()
	c.cfg.Recorder.Eventf(obj, corev1.EventTypeWarning, ReasonRefused, "%s", msg)
	c.report(Outcome{Type: Refused, Resource: resource, Namespace: namespace, Name: name, Message: msg})
}

func (c *Controller) clearRefusal(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.refused, key)
}

// kindOf is the kind, name and resourceVersion of a whole ConfigMap or Secret (the cache
// without DigestTransform).
func kindOf(obj any) (reload.Kind, string, string) {
	switch o := obj.(type) {
	case *corev1.ConfigMap:
		return reload.ConfigMap, o.Name, o.ResourceVersion
	case *corev1.Secret:
		return reload.Secret, o.Name, o.ResourceVersion
	}
	return "", "", ""
}

// writeOptions are the restart and adopt patches' options: Config.FieldManager, or
// kube.ReloadFieldManager.
func (c *Controller) writeOptions() kube.Options {
	if c.cfg.FieldManager == "" {
		return kube.Options{FieldManager: kube.ReloadFieldManager}
	}
	return kube.Options{FieldManager: c.cfg.FieldManager}
}
