package drive

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/deployutil"
	"github.com/rollplan/kubectl-rollplan/pkg/kube"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// createNewRS creates the new ReplicaSet from the Deployment the API server returned, as
// the controller would (getNewReplicaSet, pkg/controller/deployment/sync.go, v1.36.3) but
// with n replicas and without the desired-replicas and max-replicas annotations.
func (d *Driver) createNewRS(ctx context.Context, snap *Snapshot, n int32, number, of int) (*appsv1.ReplicaSet, error) {
	if err := d.leaseOK(); err != nil {
		return nil, err
	}
	dep := snap.Deployment
	s := d.held.state()
	hash := planner.ComputeHash(&dep.Spec.Template, dep.Status.CollisionCount)
	if hash != s.TargetHash {
		return nil, &StoppedError{Msg: fmt.Sprintf("%s: the template's hash is %s, the drive's target is %s: the template or status.collisionCount changed while held; see `kubectl rollplan drive status deploy/%s`", d.ref(), hash, s.TargetHash, d.opts.Name)}
	}
	rs := newReplicaSetFor(dep, hash, max(s.Revision, maxRevision(snap.ReplicaSets, "")+1), n)
	var out *appsv1.ReplicaSet
	retried := false
	err := d.retry(ctx, "create replicaset "+rs.Name, func(ctx context.Context, r bool) error {
		var err error
		out, err = kube.CreateReplicaSet(ctx, d.client, rs, d.writes())
		retried = retried || r
		return err
	})
	if apierrors.IsAlreadyExists(err) {
		var got *appsv1.ReplicaSet
		gerr := d.retry(ctx, "get replicaset "+rs.Name, func(ctx context.Context, _ bool) error {
			var err error
			got, err = d.getReplicaSet(rs.Name)(ctx)
			return err
		})
		if gerr != nil {
			return nil, fmt.Errorf("get replicaset %s/%s: %w", dep.Namespace, rs.Name, gerr)
		}
		if c := metav1.GetControllerOfNoCopy(got); c == nil || c.UID != dep.UID || !deployutil.EqualIgnoreHash(&got.Spec.Template, &dep.Spec.Template) {
			return nil, &StoppedError{Msg: fmt.Sprintf("%s: ReplicaSet %s exists with another owner or template (a hash collision): hand back with kubectl rollplan resume and let the controller roll out", d.ref(), rs.Name)}
		}
		if !retried || replicas(got) != n {
			return nil, errReplan
		}
		// Created by this driver's first attempt, whose answer was lost.
		out, err = got, nil
	}
	if err != nil {
		return nil, fmt.Errorf("create replicaset %s/%s: %w", dep.Namespace, rs.Name, err)
	}
	d.recordWrite(out)
	d.landed(number, fmt.Sprintf("created %s with %s", out.Name, replicaWord(n)))
	d.out.emit(Event{Kind: EventCreated, Step: number, Steps: of, ReplicaSet: out.Name, Revision: out.Annotations[deployutil.RevisionAnnotation], Replicas: n})
	d.ev.Eventf(dep, corev1.EventTypeNormal, ReasonCreated, "Created replica set %s with %s (step %d/%d, drive)", out.Name, replicaWord(n), number, of)
	return out, nil
}

func replicaWord(n int32) string {
	if n == 1 {
		return "1 replica"
	}
	return fmt.Sprintf("%d replicas", n)
}

// newReplicaSetFor builds the new ReplicaSet of dep: name <deployment>-<hash>, the template
// with the pod-template-hash label, the selector with it, a controller ownerReference, the
// Deployment's annotations but the skipped ones, and the revision.
func newReplicaSetFor(dep *appsv1.Deployment, hash string, revision int64, n int32) *appsv1.ReplicaSet {
	tmpl := dep.Spec.Template.DeepCopy()
	labels := map[string]string{}
	for k, v := range tmpl.Labels {
		labels[k] = v
	}
	labels[appsv1.DefaultDeploymentUniqueLabelKey] = hash
	tmpl.Labels = labels
	sel := dep.Spec.Selector.DeepCopy()
	if sel.MatchLabels == nil {
		sel.MatchLabels = map[string]string{}
	}
	sel.MatchLabels[appsv1.DefaultDeploymentUniqueLabelKey] = hash
	ann := map[string]string{}
	for k, v := range dep.Annotations {
		if !deployutil.SkipCopyAnnotation(k) {
			ann[k] = v
		}
	}
	ann[deployutil.RevisionAnnotation] = fmt.Sprint(revision)
	rsLabels := map[string]string{}
	for k, v := range labels {
		rsLabels[k] = v
	}
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{
			Name:            planner.ReplicaSetName(dep.Name, hash),
			Namespace:       dep.Namespace,
			Labels:          rsLabels,
			Annotations:     ann,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(dep, appsv1.SchemeGroupVersion.WithKind("Deployment"))},
		},
		Spec: appsv1.ReplicaSetSpec{
			Replicas:        &n,
			MinReadySeconds: dep.Spec.MinReadySeconds,
			Selector:        sel,
			Template:        *tmpl,
		},
	}
}
