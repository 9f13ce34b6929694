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

	"github.com/rollplan/kubectl-rollplan/pkg/drive/objlease"
	"github.com/rollplan/kubectl-rollplan/pkg/jsonpatch"
	"github.com/rollplan/kubectl-rollplan/pkg/kube"
)

// lease is this run's hold on the StatefulSet: the annotation value it last wrote.
type lease struct {
	o     *Options
	value string
}

// acquireLease takes the lease of sts for o.Identity (objlease.Acquire; --force takes a
// valid lease of another driver). Errors: *objlease.HeldError; a lost race (another
// driver took it at the same moment); the API's error.
func acquireLease(ctx context.Context, o *Options, sts *appsv1.StatefulSet) (*lease, error) {
	what := fmt.Sprintf("statefulset %s/%s", sts.Namespace, sts.Name)
	ops, val, taken, err := objlease.Acquire(sts, what, o.Identity, o.Now(), o.LeaseDuration, o.Force)
	if err != nil {
		return nil, err
	}
	if err := patch(ctx, o.Client, sts.Namespace, sts.Name, ops); err != nil {
		if isUnprocessable(err) || apierrors.IsConflict(err) {
			return nil, fmt.Errorf("%s changed while drive took its lease (another driver?): see kubectl rollplan drive status sts/%s, then run drive again", what, sts.Name)
		}
		return nil, fmt.Errorf("%s: take the drive lease: %w", what, err)
	}
	if taken != "" {
		o.emit(Event{Kind: EventTookLease, Holder: taken})
	}
	return &lease{o: o, value: val}, nil
}

// renewIfDue renews the lease when a third of it or less is left. Errors: the lease was
// taken by another driver (the test of the last value failed: the walk stops, writing
// nothing more); the API's error.
func (l *lease) renewIfDue(ctx context.Context) error {
	now := l.o.Now()
	if !objlease.Due(l.value, now, l.o.LeaseDuration) {
		return nil
	}
	ops, val := objlease.Renew(l.value, l.o.Identity, now, l.o.LeaseDuration)
	err := patch(ctx, l.o.Client, l.o.Ref.Namespace, l.o.Ref.Name, ops)
	if err == nil {
		l.value = val
		return nil
	}
	// Whose is it now? A failed test means another driver (or an edit) changed it.
	if sts, gerr := l.o.Client.AppsV1().StatefulSets(l.o.Ref.Namespace).Get(ctx, l.o.Ref.Name, metav1.GetOptions{}); gerr == nil {
		if cur, rerr := objlease.Read(sts); rerr != nil || cur == nil || cur.Holder != l.o.Identity {
			return fmt.Errorf("statefulset %s/%s: drive lost its lease (another driver took it with --force, or the annotation was edited); it stopped without writing", l.o.Ref.Namespace, l.o.Ref.Name)
		}
	}
	if objlease.Due(l.value, now, 0) { // expired: no write is ours any more
		return fmt.Errorf("statefulset %s/%s: could not renew the drive lease before it expired: %w; run drive again", l.o.Ref.Namespace, l.o.Ref.Name, err)
	}
	l.o.emit(Event{Kind: EventRenewRetry, Err: err})
	return nil
}

// release removes the lease (best effort, within 10 s, also after ctx ended): a lease
// another driver took stays theirs.
func (l *lease) release(ctx context.Context) {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	_ = patch(wctx, l.o.Client, l.o.Ref.Namespace, l.o.Ref.Name, objlease.Release(l.value))
}

func patch(ctx context.Context, cs kubernetes.Interface, ns, name string, ops []jsonpatch.Op) error {
	body, err := json.Marshal(ops)
	if err != nil {
		return err
	}
	_, err = cs.AppsV1().StatefulSets(ns).Patch(ctx, name, types.JSONPatchType, body, metav1.PatchOptions{FieldManager: kube.FieldManager})
	return err
}

// transient returns nil for a transient API error (kube.IsTransient: the API server
// restarting or unreachable) while this driver's lease has not expired, after a warning on
// Progress: the walk reads again. Other errors, or any once the lease expired, come back.
func (l *lease) transient(err error) error {
	if !kube.IsTransient(errors.Unwrap(err)) && !kube.IsTransient(err) || objlease.Due(l.value, l.o.Now(), 0) {
		return err
	}
	l.o.emit(Event{Kind: EventTransientRetry, Err: err})
	return nil
}
