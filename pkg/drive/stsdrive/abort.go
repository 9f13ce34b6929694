package stsdrive

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/kube"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
	"github.com/rollplan/kubectl-rollplan/pkg/workload"
	"github.com/rollplan/kubectl-rollplan/pkg/workload/live"
)

// AbortResult is what Abort did: the revision restored, and the pods of the abandoned
// revision it deleted (not Ready ones only; see Abort).
type AbortResult struct {
	Restored string   // the ControllerRevision name (status.currentRevision)
	Deleted  []string // pod names
}

// Abort restores the template of status.currentRevision (kubectl's rollback patch, with the
// partition at 0, in one write guarded by the resourceVersion) so the controller rolls the
// updated pods back. Then, as the StatefulSet docs' "forced rollback" asks, it deletes the
// pods of the abandoned update revision that are not Ready: with podManagementPolicy
// OrderedReady the controller waits forever for such a pod (monotonic processing in
// pkg/controller/statefulset/stateful_set_control.go, v1.36.3) and never replaces it. It does
// not wait for the rollback.
//
// Errors: partition.Validate's; no ControllerRevision named status.currentRevision; nothing
// to abort (currentRevision equals updateRevision); the write's (one line).
func Abort(ctx context.Context, cs kubernetes.Interface, ref target.KindRef) (*AbortResult, error) {
	st, err := live.Load(ctx, cs, ref)
	if err != nil {
		return nil, err
	}
	sts := st.Workload.StatefulSet
	cur, upd := sts.Status.CurrentRevision, sts.Status.UpdateRevision
	if cur == "" || cur == upd {
		return nil, fmt.Errorf("statefulset %s/%s: no rollout to abort (status.currentRevision %q equals updateRevision): use kubectl rollplan undo to go back a revision", ref.Namespace, ref.Name, cur)
	}
	var rev *appsv1.ControllerRevision
	for _, r := range workload.Owned(st.Workload, st.Revisions) {
		if r.Name == cur {
			rev = r
		}
	}
	if rev == nil {
		return nil, fmt.Errorf("statefulset %s/%s: controllerrevision %s (status.currentRevision) not found: nothing was written", ref.Namespace, ref.Name, cur)
	}
	body, err := AbortPatch(rev)
	if err != nil {
		return nil, err
	}
	if err := live.Patch(ctx, cs, st.Workload, body, kube.Default()); err != nil {
		return nil, err
	}
	res := &AbortResult{Restored: cur}
	for _, p := range workload.Owned(st.Workload, st.Pods) {
		if p.Labels[appsv1.ControllerRevisionHashLabelKey] != upd || p.DeletionTimestamp != nil || ready(p) {
			continue
		}
		uid := p.UID
		err := cs.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			return res, fmt.Errorf("statefulset %s/%s: template restored, but delete pod %s: %w: delete it yourself", ref.Namespace, ref.Name, p.Name, err)
		}
		res.Deleted = append(res.Deleted, p.Name)
	}
	return res, nil
}

func ready(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
