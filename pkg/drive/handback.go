package drive

import (
	"context"
	"errors"
	"fmt"

	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/deployutil"
	"github.com/rollplan/kubectl-rollplan/pkg/jsonpatch"
	"github.com/rollplan/kubectl-rollplan/pkg/kube"
	"github.com/rollplan/kubectl-rollplan/pkg/watch"
)

// handBackOps is the one guarded write that hands a held Deployment back: the original
// strategy, spec.paused as it was, the drive annotation removed and, when template is not
// nil, that template (an abort restores the previous one). It is guarded by tests of
// metadata.generation (no spec edit since the driver's last check) and of the annotation's
// value.
func handBackOps(dep *appsv1.Deployment, annValue string, s *State, template *corev1.PodTemplateSpec) []jsonpatch.Op {
	ops := []jsonpatch.Op{
		jsonpatch.Test("/metadata/generation", dep.Generation),
		jsonpatch.Test(jsonpatch.AnnotationPath(Annotation), annValue),
		jsonpatch.Replace("/spec/strategy", s.OriginalStrategy),
		jsonpatch.Replace("/spec/paused", s.OriginalPaused),
		jsonpatch.Remove(jsonpatch.AnnotationPath(Annotation)),
	}
	if template != nil {
		ops = append(ops, jsonpatch.Replace("/spec/template", template))
	}
	return ops
}

// showsHandBack reports whether dep was handed back as s says: no drive annotation, the
// original strategy and paused value (a hand-back whose answer was lost).
func showsHandBack(dep *appsv1.Deployment, s *State) bool {
	_, held := dep.Annotations[Annotation]
	return !held && dep.Spec.Paused == s.OriginalPaused && apiequality.Semantic.DeepEqual(dep.Spec.Strategy, s.OriginalStrategy)
}

// previousTemplate is rs's template without the pod-template-hash label: what
// `kubectl rollout undo` writes back (polymorphichelpers/rollback.go).
func previousTemplate(rs *appsv1.ReplicaSet) *corev1.PodTemplateSpec {
	t := rs.Spec.Template.DeepCopy()
	delete(t.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
	return t
}

// HandBackPreview returns the Deployment as it will be once handed back at its current
// state: the original strategy and paused value, no drive annotation, and for an abort in
// progress the previous template. It is the input for planner.Simulate to show what the
// controller does next. rss are the Deployment's ReplicaSets (for the previous template).
//
// Errors: d not held, or a drive state that cannot be read.
func HandBackPreview(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) (*appsv1.Deployment, error) {
	s, err := ReadState(d)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return nil, fmt.Errorf("deployment %s/%s is not held by drive", d.Namespace, d.Name)
	}
	out := d.DeepCopy()
	out.Spec.Strategy = *s.OriginalStrategy.DeepCopy()
	out.Spec.Paused = s.OriginalPaused
	delete(out.Annotations, Annotation)
	if s.Phase == PhaseAbort {
		for _, rs := range rss {
			if rs.Name == s.PreviousReplicaSet {
				out.Spec.Template = *previousTemplate(rs)
			}
		}
	}
	return out, nil
}

// finish hands the Deployment back at the end of the drive (or the abort), waits until the
// controller reports the rollout complete at the right revision, and tidies the ReplicaSets.
func (d *Driver) finish(ctx context.Context) (*Result, error) {
	// No lease renewal from here on: the hand-back is guarded by the generation and the
	// annotation of one fresh read, which a renewal would change.
	d.stopRenew()
	snap, err := d.read(ctx)
	if err != nil {
		return nil, err
	}
	if err := d.check(ctx, snap); err != nil {
		return nil, err
	}
	if rest, err := PlanSteps(d.held.state().Bounds(), snap.Start()); err != nil || len(rest) > 0 {
		d.startRenew(ctx) // something moved since the last read: go on driving
		return nil, errReplan
	}
	// The annotation as read: check found it this driver's (same plan, held by it), and a
	// renewal of its own that landed although its answer was lost is in it.
	s := d.held.state()
	annValue := snap.Deployment.Annotations[Annotation]
	target := snap.ReplicaSet(snap.TargetName())
	if target == nil {
		return nil, fmt.Errorf("%s: ReplicaSet %s is gone", d.ref(), snap.TargetName())
	}
	var tmpl *corev1.PodTemplateSpec
	if s.Phase == PhaseAbort {
		tmpl = previousTemplate(target)
	}
	if err := d.leaseOK(); err != nil {
		return nil, err
	}
	var out *appsv1.Deployment
	err = d.retryUntil(ctx, d.writeDeadline(s), "hand back "+d.ref(), true, func(ctx context.Context, retried bool) error {
		var err error
		if out, err = kube.PatchDeployment(ctx, d.client, snap.Deployment, handBackOps(snap.Deployment, annValue, s, tmpl), d.writes()); err != nil {
			out, err = kube.Applied(ctx, retried, err, d.getDeploymentOnce, func(now *appsv1.Deployment) bool { return showsHandBack(now, s) })
		}
		return err
	})
	if errors.Is(err, kube.ErrGuard) {
		return nil, &StoppedError{Msg: fmt.Sprintf("%s changed just before the hand-back (%v): the Deployment stays held; run drive again", d.ref(), err)}
	}
	if err != nil {
		return nil, err
	}
	d.held.handedBack(out)
	revision := max(revisionOf(target), maxRevision(snap.ReplicaSets, target.Name)+1)
	outcome := OutcomeComplete
	what := fmt.Sprintf("rolled out %s", target.Name)
	if s.Phase == PhaseAbort {
		outcome, what = OutcomeAborted, fmt.Sprintf("walked back to %s (previous template restored)", target.Name)
	}
	d.out.emit(Event{Kind: EventHandedBack, Ref: d.ref(), Message: what, Strategy: describeStrategy(s.OriginalStrategy), Paused: s.OriginalPaused})
	d.ev.Eventf(out, corev1.EventTypeNormal, ReasonHandBack, "Handed back to the deployment controller: %s; strategy %s restored, paused %v (plan %s)", what, describeStrategy(s.OriginalStrategy), s.OriginalPaused, s.PlanID)
	if err := d.waitComplete(ctx, out.Generation, revision); err != nil {
		return nil, err
	}
	b := s.Bounds()
	d.tidy(ctx, target.Name, b)
	return &Result{Outcome: outcome, Revision: revision, Step: s.Step, Steps: s.Steps}, nil
}

// waitComplete waits until the controller has observed generation gen and reports the
// rollout complete (as `kubectl rollout status` decides) at revision.
func (d *Driver) waitComplete(ctx context.Context, gen, revision int64) error {
	timeout := d.completionTimeout()
	var msg string
	cond := func() (bool, error) {
		dep := d.view.Deployment(d.opts.Name)
		if dep == nil || dep.Generation < gen {
			return false, nil
		}
		m, done, err := watch.RolloutStatus(dep, revision)
		msg = m
		if err != nil && dep.Status.ObservedGeneration >= gen {
			// A revision mismatch can be the controller not having synced yet.
			if rev, _ := deployutil.Revision(dep); rev == revision || rev > revision {
				return false, err
			}
			return false, nil
		}
		return done, nil
	}
	err := d.view.Wait(ctx, timeout, cond, func(w time.Duration) {
		d.out.emit(Event{Kind: EventWaitingController, Message: trimNL(msg), Duration: w})
	})
	if errors.Is(err, watch.ErrTimeout) {
		return fmt.Errorf("%s was handed back but the controller did not report it complete within %s: %s", d.ref(), timeout, trimNL(msg))
	}
	if err != nil {
		return err
	}
	d.out.emit(Event{Kind: EventControllerDone, Message: trimNL(msg)})
	return nil
}

// completionTimeout is Options.CompletionTimeout, or by default the step's progress timeout
// and at least 2 minutes: after an API server restart the controller's informers relist with
// client-go's backoff, and on the local cluster the controller came back up to about 3
// minutes later; a controller that reports the rollout failed ends the wait at once.
func (d *Driver) completionTimeout() time.Duration {
	if d.opts.CompletionTimeout > 0 {
		return d.opts.CompletionTimeout
	}
	return max(d.progressTimeout(), 2*time.Minute)
}

func trimNL(s string) string {
	for len(s) > 0 && s[len(s)-1] == '\n' {
		s = s[:len(s)-1]
	}
	return s
}

// tidy removes the copies of the drive annotation the controller made on the ReplicaSets
// while it held the Deployment, and gives the target ReplicaSet the desired-replicas and
// max-replicas annotations the controller would have written had it scaled it. Failures
// are warnings: the rollout is complete either way.
//
// Transient failures are retried; a guard refusal after one (a tidy patch applied whose
// answer was lost) reads again and tidies what is left, up to three passes.
func (d *Driver) tidy(ctx context.Context, target string, b Bounds) {
	var err error
	for pass := 0; pass < 3; pass++ {
		retried := false
		err = d.retry(ctx, "tidy the ReplicaSets of "+d.ref(), func(ctx context.Context, r bool) error {
			retried = retried || r
			st, err := cluster.LoadLive(ctx, d.client, d.opts.Namespace, d.opts.Name)
			if err != nil {
				return err
			}
			return tidyReplicaSets(ctx, d.client, st.ReplicaSets, target, &b, d.writes())
		})
		if err == nil || !retried || !errors.Is(err, kube.ErrGuard) {
			break
		}
	}
	if err != nil {
		d.out.emit(Event{Kind: EventTidyFailed, Ref: d.ref(), Err: err})
	}
}

// tidyReplicaSets removes copies of the drive annotation from rss; with b it also sets the
// replica annotations of target (guarded by a test of its replicas).
func tidyReplicaSets(ctx context.Context, client kubernetes.Interface, rss []*appsv1.ReplicaSet, target string, b *Bounds, o kube.Options) error {
	var errs []error
	for _, rs := range rss {
		var ops []jsonpatch.Op
		if v, ok := rs.Annotations[Annotation]; ok {
			ops = append(ops, jsonpatch.Test(jsonpatch.AnnotationPath(Annotation), v), jsonpatch.Remove(jsonpatch.AnnotationPath(Annotation)))
		}
		if b != nil && rs.Name == target && replicas(rs) == b.Replicas {
			desired, maxR := strconv.Itoa(int(b.Replicas)), strconv.Itoa(int(b.MaxPods()))
			if rs.Annotations[deployutil.DesiredReplicasAnnotation] != desired || rs.Annotations[deployutil.MaxReplicasAnnotation] != maxR {
				ops = append(ops, jsonpatch.Test("/spec/replicas", b.Replicas))
				if rs.Annotations == nil {
					ops = append(ops, jsonpatch.Add("/metadata/annotations", map[string]string{}))
				}
				ops = append(ops,
					jsonpatch.Add(jsonpatch.AnnotationPath(deployutil.DesiredReplicasAnnotation), desired),
					jsonpatch.Add(jsonpatch.AnnotationPath(deployutil.MaxReplicasAnnotation), maxR))
			}
		}
		if len(ops) == 0 {
			continue
		}
		if err := kube.PatchReplicaSet(ctx, client, rs, ops, o); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// TidyLeftovers removes copies of the drive annotation from the ReplicaSets of a Deployment
// that is not held (left when a driver stopped between its hand-back and its tidy).
func TidyLeftovers(ctx context.Context, client kubernetes.Interface, namespace, name string) error {
	st, err := cluster.LoadLive(ctx, client, namespace, name)
	if err != nil {
		return err
	}
	if IsHeld(st.Deployment) {
		return nil
	}
	return tidyReplicaSets(ctx, client, st.ReplicaSets, "", nil, kube.Default())
}

// sendHandBack makes the hand-back write of dep (state s, template tmpl for an abort)
// through transient failures, never twice (kube.Retry, kube.Applied with showsHandBack).
func sendHandBack(ctx context.Context, client kubernetes.Interface, dep *appsv1.Deployment, s *State, tmpl *corev1.PodTemplateSpec) (*appsv1.Deployment, error) {
	var got *appsv1.Deployment
	get := func(ctx context.Context) (*appsv1.Deployment, error) {
		return client.AppsV1().Deployments(dep.Namespace).Get(ctx, dep.Name, metav1.GetOptions{})
	}
	err := kube.Retry{}.Do(ctx, func(ctx context.Context, retried bool) error {
		var err error
		if got, err = kube.PatchDeployment(ctx, client, dep, handBackOps(dep, dep.Annotations[Annotation], s, tmpl), kube.Default()); err != nil {
			got, err = kube.Applied(ctx, retried, err, get, func(now *appsv1.Deployment) bool { return showsHandBack(now, s) })
		}
		return err
	})
	return got, err
}

// HandBackOptions configure HandBack.
type HandBackOptions struct {
	// Force hands back even while another driver's lease is valid (that driver then stops).
	Force bool
	// Wait waits (up to Timeout, default 1 minute) until the controller has observed the
	// hand-back, and then tidies the ReplicaSets.
	Wait    bool
	Timeout time.Duration
	// Progress receives the progress events (nil: discarded).
	Progress func(Event)
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// HandBackResult says what HandBack did.
type HandBackResult struct {
	// Deployment is the Deployment the hand-back write returned.
	Deployment *appsv1.Deployment
	// State is the drive state that was removed.
	State *State
	// RestoredTemplate: an abort was in progress, so the previous template was restored.
	RestoredTemplate bool
}

// HandBack hands a held Deployment back to the controller at its current state (kubectl
// rollplan resume): one guarded write (retried through transient failures for
// kube.TransientTimeout, never applied twice: see kube.Applied) restores the original strategy and paused value and
// removes the drive annotation (during an abort it also restores the previous template, so
// the controller finishes the walk back); the controller then finishes the rollout itself
// within the original maxSurge and maxUnavailable.
//
// Errors: the Deployment is not held; a running driver holds the lease (unless Force); the
// Deployment changed between the read and the write (a failed guard: nothing written).
func HandBack(ctx context.Context, client kubernetes.Interface, namespace, name string, opts HandBackOptions) (*HandBackResult, error) {
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	out := newProgress(opts.Progress)
	ref := fmt.Sprintf("deployment %s/%s", namespace, name)
	st, err := kube.Read(ctx, kube.Retry{}, func(ctx context.Context) (*cluster.State, error) {
		return cluster.LoadLive(ctx, client, namespace, name)
	})
	if err != nil {
		return nil, err
	}
	snap, err := NewSnapshot(st)
	if err != nil {
		return nil, err
	}
	s := snap.State
	if s == nil {
		return nil, fmt.Errorf("%s is not held by drive: nothing to hand back", ref)
	}
	if s.LeaseValid(now()) && !opts.Force {
		return nil, fmt.Errorf("%s is being driven by %s (lease valid until %s): stop that driver first, or pass --force (it then stops at its next write)", ref, s.Holder, s.LeaseExpires.Format(time.RFC3339))
	}
	dep := snap.Deployment
	var tmpl *corev1.PodTemplateSpec
	if s.Phase == PhaseAbort {
		if prev := snap.ReplicaSet(s.PreviousReplicaSet); prev != nil {
			tmpl = previousTemplate(prev)
		}
	}
	got, err := sendHandBack(ctx, client, dep, s, tmpl)
	if errors.Is(err, kube.ErrGuard) {
		return nil, fmt.Errorf("%s changed while handing it back: nothing written; run the command again", ref)
	}
	if err != nil {
		return nil, err
	}
	ev := kube.NewRecorder(client, func(m string) { out.emit(Event{Kind: EventWarning, Message: m}) })
	ev.Eventf(got, corev1.EventTypeNormal, ReasonHandBack, "Handed back to the deployment controller at step %d/%d (kubectl rollplan resume); strategy %s restored, paused %v (plan %s)",
		s.Step, s.Steps, describeStrategy(s.OriginalStrategy), s.OriginalPaused, s.PlanID)
	ev.Shutdown(eventFlushTimeout)
	out.emit(Event{Kind: EventHandedBackAt, Ref: ref, Step: s.Step, Steps: s.Steps, Strategy: describeStrategy(s.OriginalStrategy), Paused: s.OriginalPaused})
	res := &HandBackResult{Deployment: got, State: s, RestoredTemplate: tmpl != nil}
	if !opts.Wait {
		return res, nil
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = time.Minute
	}
	v, err := watch.ForDeployment(ctx, client, got, now)
	if err != nil {
		return res, err
	}
	defer v.Close()
	err = v.Wait(ctx, timeout, func() (bool, error) {
		cur := v.Deployment(name)
		return cur != nil && cur.Status.ObservedGeneration >= got.Generation, nil
	}, nil)
	if errors.Is(err, watch.ErrTimeout) {
		return res, fmt.Errorf("%s was handed back, but the controller has not observed it within %s", ref, timeout)
	}
	if err != nil {
		return res, err
	}
	st, err = cluster.LoadLive(ctx, client, namespace, name)
	if err == nil {
		err = tidyReplicaSets(ctx, client, st.ReplicaSets, "", nil, kube.Default())
	}
	if err != nil {
		out.emit(Event{Kind: EventTidyFailed, Ref: ref, Err: err})
	}
	return res, nil
}
