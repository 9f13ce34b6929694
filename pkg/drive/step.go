package drive

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/deployutil"
	"github.com/rollplan/kubectl-rollplan/pkg/jsonpatch"
	"github.com/rollplan/kubectl-rollplan/pkg/kube"
)

// runStep makes one step: scale the target up (or create it), wait for its pods, then scale
// old ReplicaSets down with the availability there is.
func (d *Driver) runStep(ctx context.Context, snap *Snapshot, step Step, number, of int) error {
	began := d.now()
	target := snap.ReplicaSet(step.New.Name)
	if step.Create || step.New.To > step.New.From {
		// The bound counts pods: the pods of earlier scale-downs must be gone (terminating)
		// before new ones are added, or the two ReplicaSets' pods overlap for a moment.
		if err := d.waitScaledDown(ctx, step.New.Name, number, of); err != nil {
			return err
		}
	}
	var gen int64
	switch {
	case step.Create:
		rs, err := d.createNewRS(ctx, snap, step.New.To, number, of)
		if err != nil {
			return err
		}
		target, gen = rs, rs.Generation
	case step.New.From != step.New.To:
		rs, err := d.scale(ctx, target, step.New.From, step.New.To, number, of)
		if err != nil {
			return err
		}
		target, gen = rs, rs.Generation
	default:
		gen = target.Generation
	}
	if err := d.pendingReplicas(ctx); err != nil {
		return err
	}
	if err := d.waitAvailable(ctx, target.Name, gen, step.WaitAvailable, number, of, began); err != nil {
		return err
	}
	snap, err := d.read(ctx)
	if err != nil {
		return err
	}
	if err := d.check(ctx, snap); err != nil {
		return err
	}
	start := snap.Start()
	if start.New.Replicas != step.New.To || start.New.available() < step.WaitAvailable {
		return errReplan
	}
	b := d.held.state().Bounds()
	olds, _ := scaleDownOld(b, start)
	for i, o := range olds {
		if o.Replicas == start.Old[i].Replicas {
			continue
		}
		if _, err := d.scale(ctx, snap.ReplicaSet(o.Name), start.Old[i].Replicas, o.Replicas, number, of); err != nil {
			return err
		}
	}
	after := Start{New: start.New, NewExists: true, Old: olds}
	d.out.emit(Event{Kind: EventStepDone, Step: number, Steps: of, Duration: d.now().Sub(began), Counts: describeCounts(after),
		Pods: after.pods(), Available: after.available(), MaxPods: b.MaxPods(), MinAvailable: b.MinAvailable()})
	return nil
}

// stepUnderWay is the step a run is making (Number 0: none) and its ReplicaSet writes that
// landed so far ("created web-6d4f with 3 replicas", "scaled down web-5c9b from 10 to 8"):
// the drive state records a step only once it is done, so a run that ends in the middle
// leaves writes the state does not name yet (HeldError.Landed).
type stepUnderWay struct {
	Number int
	Landed []string
}

// landed records a ReplicaSet write of step number that the API server applied.
func (d *Driver) landed(number int, what string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.underWay.Number != number {
		d.underWay = stepUnderWay{Number: number}
	}
	d.underWay.Landed = append(d.underWay.Landed, what)
}

// stepDone forgets the step under way once the drive state records it.
func (d *Driver) stepDone() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.underWay = stepUnderWay{}
}

// stepInFlight returns the step under way and its writes that landed (Number 0: none).
func (d *Driver) stepInFlight() stepUnderWay {
	d.mu.Lock()
	defer d.mu.Unlock()
	return stepUnderWay{Number: d.underWay.Number, Landed: slices.Clone(d.underWay.Landed)}
}

func describeCounts(s Start) string {
	parts := []string{fmt.Sprintf("%s %d/%d", s.New.Name, s.New.available(), s.New.Replicas)}
	for _, o := range s.Old {
		parts = append(parts, fmt.Sprintf("%s %d/%d", o.Name, o.available(), o.Replicas))
	}
	return strings.Join(parts, ", ")
}

// deployment returns the Deployment as last read or written.
func (d *Driver) deployment() *appsv1.Deployment {
	return d.held.deployment()
}

// scale writes rs's spec.replicas from -> to (guarded), records it and an Event.
func (d *Driver) scale(ctx context.Context, rs *appsv1.ReplicaSet, from, to int32, number, of int) (*appsv1.ReplicaSet, error) {
	if rs == nil {
		return nil, errReplan
	}
	if err := d.leaseOK(); err != nil {
		return nil, err
	}
	var extra []jsonpatch.Op
	if _, ok := rs.Annotations[deployutil.DesiredReplicasAnnotation]; ok && rs.Name == d.targetName() && to > from {
		// A desired-replicas annotation on the target would let the paused controller see
		// it saturated (IsSaturated) and scale the others to 0 before drive does.
		extra = append(extra, jsonpatch.Remove(jsonpatch.AnnotationPath(deployutil.DesiredReplicasAnnotation)))
	}
	var out *appsv1.ReplicaSet
	err := d.retry(ctx, fmt.Sprintf("scale %s from %d to %d", rs.Name, from, to), func(ctx context.Context, retried bool) error {
		var err error
		if out, err = kube.ScaleReplicaSet(ctx, d.client, rs, from, to, d.writes(), extra...); err != nil {
			// Sent again after a lost answer, the test of from fails: done if it shows to.
			out, err = kube.Applied(ctx, retried, err, d.getReplicaSet(rs.Name), func(now *appsv1.ReplicaSet) bool {
				return now.UID == rs.UID && replicas(now) == to
			})
		}
		return err
	})
	if errors.Is(err, kube.ErrGuard) {
		return nil, errReplan
	}
	if err != nil {
		return nil, err
	}
	d.recordWrite(out)
	dir := "up"
	if to < from {
		dir = "down"
	}
	d.landed(number, fmt.Sprintf("scaled %s %s from %d to %d", dir, rs.Name, from, to))
	d.out.emit(Event{Kind: EventScaled, Step: number, Steps: of, Direction: dir, ReplicaSet: rs.Name, From: int64(from), To: int64(to)})
	d.ev.Eventf(d.deployment(), corev1.EventTypeNormal, ReasonScaled, "Scaled %s replica set %s from %d to %d (step %d/%d, %s)", dir, rs.Name, from, to, number, of, d.phaseWord())
	return out, nil
}

// getReplicaSet returns a one-shot read of ReplicaSet name (Applied's read).
func (d *Driver) getReplicaSet(name string) func(context.Context) (*appsv1.ReplicaSet, error) {
	return func(ctx context.Context) (*appsv1.ReplicaSet, error) {
		return d.client.AppsV1().ReplicaSets(d.opts.Namespace).Get(ctx, name, metav1.GetOptions{})
	}
}

func (d *Driver) phaseWord() string {
	if d.held.state().Phase == PhaseAbort {
		return "abort"
	}
	return "drive"
}

func (d *Driver) targetName() string {
	s := d.held.state()
	if s.Phase == PhaseAbort {
		return s.PreviousReplicaSet
	}
	return s.NewReplicaSet
}

func (d *Driver) recordWrite(rs *appsv1.ReplicaSet) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.lastWritten[rs.Name] = replicas(rs)
	if d.written == nil {
		d.written = map[string]int64{}
	}
	d.written[rs.Name] = rs.Generation
}
