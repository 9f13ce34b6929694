package controller

import (
	"context"
	"fmt"
	"maps"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/rollplan/kubectl-rollplan/pkg/kube"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
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
)

// baseline is the checksums of references a Deployment had not recorded when the controller
// first saw it (no annotation yet, or a reference added since): a later change of one of
// them is a change, as XING's controller counts a second change of an unrecorded config.
// It lives in memory only; once a restart wrote the annotation, the annotation is the state.
type baseline struct {
	uid       types.UID
	checksums map[string]string
}

// sync is the queue's handler for one Deployment key: decide (reload.Decide, with the
// baseline for unrecorded references), then restart when stale and wait for the rollout.
// Idempotent: it reads everything from the cache. An error requeues key (watch.Queue).
func (c *Controller) sync(ctx context.Context, key string) error {
	since, hadChange := c.takePending(key)
	if hadChange {
		c.metrics.changesProcessed.Inc()
	}
	d := c.informers.deployment(key)
	if d == nil || !reload.OptedIn(d) {
		c.forget(key)
		return nil
	}
	dec := c.decide(key, d)
	if dec.Refused() {
		c.reportRefusal(key, d, dec)
		return nil
	}
	c.clearRefusal(key)
	if !dec.Stale {
		return nil
	}
	out, err := c.restart(ctx, d, dec)
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

// decide is reload.Decide of d over the cached objects it references; references d has not
// recorded are compared with the baseline taken when the controller first saw them.
func (c *Controller) decide(key string, d *appsv1.Deployment) reload.Decision {
	objects := map[reload.ObjectKey]reload.Object{}
	for _, r := range reload.References(&d.Spec.Template) {
		if o, ok := c.informers.object(d.Namespace, r.Kind, r.Name); ok {
			objects[reload.ObjectKey{Namespace: d.Namespace, Kind: r.Kind, Name: r.Name}] = o
		}
	}
	dec := reload.Decide(d, objects)
	unrecorded := map[string]string{}
	for _, s := range dec.Refs {
		if s.Recorded == "" {
			unrecorded[s.Ref.AnnotationKey()] = s.Checksum
		}
	}
	base := c.baseline(key, d.UID, unrecorded)
	if len(base) == 0 {
		return dec
	}
	effective := d.DeepCopy()
	recorded := map[string]string{}
	if v, ok := d.Spec.Template.Annotations[reload.ChecksumsAnnotation]; ok && dec.AnnotationErr == nil {
		recorded, _ = reload.DecodeChecksums(v)
	}
	for k, v := range base {
		if _, ok := recorded[k]; !ok {
			recorded[k] = v
		}
	}
	if effective.Spec.Template.Annotations == nil {
		effective.Spec.Template.Annotations = map[string]string{}
	}
	effective.Spec.Template.Annotations[reload.ChecksumsAnnotation] = reload.EncodeChecksums(recorded)
	return reload.Decide(effective, objects)
}

// baseline returns the baseline checksums of key's unrecorded references, taking those not
// in it yet from unrecorded (the checksums seen now). A Deployment recreated under its name
// (another UID) starts a new baseline; none unrecorded drops it.
func (c *Controller) baseline(key string, uid types.UID, unrecorded map[string]string) map[string]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(unrecorded) == 0 {
		delete(c.baselines, key)
		return nil
	}
	b := c.baselines[key]
	if b.uid != uid {
		b = baseline{uid: uid, checksums: map[string]string{}}
	}
	for k, v := range unrecorded {
		if _, ok := b.checksums[k]; !ok && v != "" {
			b.checksums[k] = v
		}
	}
	c.baselines[key] = b
	return maps.Clone(b.checksums)
}

// restart sends reload.RestartPatch of dec through pkg/kube (one guarded JSON patch of the
// template annotation, field manager kubectl-rollplan), then records the Event and the line.
func (c *Controller) restart(ctx context.Context, d *appsv1.Deployment, dec reload.Decision) (*appsv1.Deployment, error) {
	body, err := reload.RestartPatch(d, dec.Checksums)
	if err != nil {
		return nil, err
	}
	out, err := kube.PatchDeploymentGuarded(ctx, c.client, d, kube.GuardedPatch{Type: types.JSONPatchType, Body: body, ResourceVersion: d.ResourceVersion}, kube.Default())
	if err != nil {
		return nil, err
	}
	c.metrics.annotationUpdates.Inc()
	c.metrics.restarts.Inc()
	changed := changedRefs(dec)
	msg := printer.ReloadRestartMessage(changed)
	c.cfg.Recorder.Eventf(out, corev1.EventTypeNormal, ReasonRestarted, "%s", msg)
	printer.ReloadRestarted(c.out(), d.Namespace, d.Name, msg)
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
// of a Deployment (a status update re-syncs it without repeating them).
func (c *Controller) reportRefusal(key string, d *appsv1.Deployment, dec reload.Decision) {
	msg := dec.Refusal.Error()
	c.mu.Lock()
	same := c.refused[key] == msg
	c.refused[key] = msg
	c.mu.Unlock()
	if same {
		return
	}
	c.metrics.refusals.Inc()
	c.cfg.Recorder.Eventf(d, corev1.EventTypeWarning, ReasonRefused, "%s", msg)
	printer.ReloadRefused(c.out(), msg)
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
