package stsdrive

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/drive/partition"
	"github.com/rollplan/kubectl-rollplan/pkg/kube"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
	"github.com/rollplan/kubectl-rollplan/pkg/workload"
	"github.com/rollplan/kubectl-rollplan/pkg/workload/live"
)

// Options is one drive of one StatefulSet.
type Options struct {
	Client kubernetes.Interface
	Ref    target.KindRef // Kind StatefulSet
	Change Change         // nothing: continue the walk from the stored partition (a resume)
	Walk   partition.Config
	// Interval is the bake time between two steps (after a step's pods are available).
	Interval time.Duration
	// Resync is the longest wait without a change notification before the walk reads the
	// StatefulSet and its pods again (default DefaultResync); a change of either wakes it
	// at once (watchChanges), and so does the instant a pod becomes available or a step
	// passes its deadline (partition.WakeAt). A failed read is retried after
	// min(Resync, 1 s).
	Resync   time.Duration
	Progress func(Event) // the walk's progress events (nil: none); pkg/printer's StsProgress renders them
	Now      func() time.Time
	// Identity names this driver in the lease (drive.DefaultIdentity); Force takes a
	// valid lease of another driver; LeaseDuration is how long the lease lasts without
	// renewal (default 30 s; renewed when a third of it is left).
	Identity      string
	Force         bool
	LeaseDuration time.Duration
}

// HeldError is a walk stopped at a partition (a pause, a failed pod, a passed --timeout):
// the StatefulSet stays there, intact; exit code 4.
type HeldError struct {
	Ref       target.KindRef
	Partition int32
	Replicas  int32
	Action    partition.Action // Pause or Hold
	Reason    string
}

func (e *HeldError) Error() string {
	return fmt.Sprintf("statefulset %s/%s stays at partition %d of %d replicas: %s", e.Ref.Namespace, e.Ref.Name, e.Partition, e.Replicas, e.Reason)
}

// Run validates the StatefulSet, applies the change with the partition at replicas in one
// guarded write (none without a change: the walk resumes from the stored partition), then
// walks it down to 0 and returns nil once every pod runs status.updateRevision, is available
// and status.currentRevision equals it.
//
// Errors: partition.Validate's one line; a write that lost a race (the object changed:
// nothing written, run again); *HeldError on a pause or hold; ctx's error when interrupted.
func Run(ctx context.Context, o Options) error {
	if o.Resync <= 0 {
		o.Resync = DefaultResync
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.LeaseDuration <= 0 {
		o.LeaseDuration = 30 * time.Second
	}
	if o.Identity == "" {
		o.Identity = "unknown"
	}
	w, err := live.Get(ctx, o.Client, o.Ref)
	if err != nil {
		return err
	}
	if err := partition.Validate(w.StatefulSet); err != nil {
		return err
	}
	l, err := acquireLease(ctx, &o, w.StatefulSet)
	if err != nil {
		return err
	}
	defer l.release(ctx)
	if w, err = live.Get(ctx, o.Client, o.Ref); err != nil { // the lease write moved its resourceVersion
		return err
	}
	sts := w.StatefulSet
	resumeAt := int32(-1)
	if o.Change.Any() {
		body, err := StartPatch(sts, o.Change, o.Now())
		if err != nil {
			return err
		}
		if err := live.Patch(ctx, o.Client, w, body, kube.Default()); err != nil {
			return err
		}
		o.emit(Event{Kind: EventChangeApplied, Partition: replicasOf(sts)})
	} else {
		resumeAt = partition.CurrentPartition(sts)
	}
	ch, err := watchChanges(ctx, o.Client, sts)
	if err != nil {
		return err
	}
	defer ch.close()
	return walk(ctx, o, l, ch, resumeAt)
}

// walk is the loop: read, decide, write or wait for a change (ch), the instant the decision
// may change by itself (partition.WakeAt) or o.Resync.
func walk(ctx context.Context, o Options, l *lease, ch *changes, resumeAt int32) error {
	retry := min(o.Resync, time.Second)
	stepStarted := o.Now()
	var lowered bool // a step was made: --interval applies before the next
	var baked bool   // the interval after the current step has passed
	for {
		if err := l.renewIfDue(ctx); err != nil {
			return err
		}
		ch.drain() // a change from here on wakes the next wait
		st, err := live.Load(ctx, o.Client, o.Ref)
		if err != nil {
			if err = l.transient(err); err == nil {
				if err := l.sleep(ctx, retry); err != nil {
					return err
				}
				continue // the API server is back soon: read again
			}
			return err
		}
		sts := st.Workload.StatefulSet
		if err := partition.Validate(sts); err != nil {
			return err
		}
		p := partition.CurrentPartition(sts)
		if sts.Status.ObservedGeneration < sts.Generation {
			if err := l.wait(ctx, ch.C, o.Resync); err != nil {
				return err
			}
			continue // status.updateRevision is not this template's yet
		}
		s := partition.State{
			Replicas: replicasOf(sts), Partition: p, UpdateRevision: sts.Status.UpdateRevision,
			MinReadySeconds: sts.Spec.MinReadySeconds,
			Pods:            partition.FromPods(sts.Name, workload.Owned(st.Workload, st.Pods)),
			Now:             o.Now(), StepStarted: stepStarted, Resumed: p == resumeAt,
		}
		dec, err := partition.Next(s, o.Walk)
		if err != nil {
			return err
		}
		switch dec.Action {
		case partition.ActionDone:
			if sts.Status.CurrentRevision == sts.Status.UpdateRevision {
				o.emit(Event{Kind: EventDone, Replicas: s.Replicas, Revision: s.UpdateRevision})
				return nil
			}
		case partition.ActionPause, partition.ActionHold:
			return &HeldError{Ref: o.Ref, Partition: p, Replicas: s.Replicas, Action: dec.Action, Reason: dec.Reason}
		case partition.ActionSetPartition:
			if lowered && o.Interval > 0 && !baked {
				o.emit(Event{Kind: EventBaking, Partition: p, Replicas: s.Replicas, Interval: o.Interval})
				if err := l.sleep(ctx, o.Interval); err != nil {
					return err
				}
				baked = true
				continue // decide again on a fresh read
			}
			if err := writePartition(ctx, o.Client, sts, dec.Partition); err != nil {
				if err = l.transient(err); err == nil {
					continue // decide again on a fresh read (a write that landed shows there)
				}
				return err
			}
			o.emit(Event{Kind: EventPartition, Partition: p, To: dec.Partition})
			stepStarted, lowered, baked = o.Now(), true, false
			continue
		}
		wait := o.Resync
		if at := partition.WakeAt(s, o.Walk); !at.IsZero() {
			wait = min(wait, at.Sub(o.Now()))
		}
		if err := l.wait(ctx, ch.C, wait); err != nil {
			return err
		}
	}
}

// writePartition sends partition.PartitionOps (a test of the stored value, then the replace).
func writePartition(ctx context.Context, cs kubernetes.Interface, sts *appsv1.StatefulSet, to int32) error {
	body, err := json.Marshal(partition.PartitionOps(sts, to))
	if err != nil {
		return err
	}
	_, err = cs.AppsV1().StatefulSets(sts.Namespace).Patch(ctx, sts.Name, types.JSONPatchType, body, metav1.PatchOptions{FieldManager: kube.FieldManager})
	switch {
	case err == nil:
		return nil
	case apierrors.IsConflict(err) || isUnprocessable(err):
		return fmt.Errorf("statefulset %s/%s: its partition changed under the drive (another driver or an edit), nothing was written: check it with kubectl get sts %s -o yaml, then run drive again", sts.Namespace, sts.Name, sts.Name)
	default:
		return fmt.Errorf("statefulset %s/%s: set the partition to %d: %w", sts.Namespace, sts.Name, to, err)
	}
}

func replicasOf(sts *appsv1.StatefulSet) int32 {
	if sts.Spec.Replicas == nil {
		return 1
	}
	return *sts.Spec.Replicas
}

// sleep waits d, renewing the lease when due (a bake longer than the lease keeps it).
func (l *lease) sleep(ctx context.Context, d time.Duration) error { return l.wait(ctx, nil, d) }

// wait waits d or until wake fires (nil: never), renewing the lease when due.
func (l *lease) wait(ctx context.Context, wake <-chan struct{}, d time.Duration) error {
	for chunk := l.o.LeaseDuration / 3; d > chunk; d -= chunk {
		if woken, err := sleep(ctx, wake, chunk); err != nil || woken {
			return err
		}
		if err := l.renewIfDue(ctx); err != nil {
			return err
		}
	}
	_, err := sleep(ctx, wake, d)
	return err
}

// sleep waits d (nothing when d <= 0), reporting whether wake fired first.
func sleep(ctx context.Context, wake <-chan struct{}, d time.Duration) (bool, error) {
	if d <= 0 {
		return false, ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false, ctx.Err()
	case <-wake:
		return true, nil
	case <-t.C:
		return false, nil
	}
}

// isUnprocessable: a JSON patch whose test op failed (HTTP 422).
func isUnprocessable(err error) bool {
	var s apierrors.APIStatus
	return errors.As(err, &s) && s.Status().Code == 422
}
