package reloadcontroller

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/kube"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/reload"
)

// firstSight judges a Deployment seen for the first time as the one-shot command does
// (reload.AssessFirstSight): when dec has an unrecorded reference and is neither stale nor
// refused (those decide alone), it sends one LIST of d's pods (d's selector, through
// kube.Read: sent again whole through transient failures) and compares the oldest pod of
// the current ReplicaSet with writes, the cached last data write of each reference. The
// controller caches no pods and no ReplicaSets: the current ReplicaSet is named from the
// template's hash as the Deployment controller names it (`<name>-<pod-template-hash>`,
// planner.ComputeHash with status.collisionCount); with no pod of it (a rollout to a new
// template not started yet) there is nothing stale. A Deployment adopted or restarted
// once has a record, so the LIST is made at first sight only.
//
// Returns the Assessment (zero when not at first sight), and a note for the adoption's
// Event when the pods may not be listed (Forbidden: the Deployment is then adopted without
// evidence, as before that permission was asked for). Errors: the LIST's other errors (the
// queue retries).
func (c *Controller) firstSight(ctx context.Context, d *appsv1.Deployment, dec reload.Decision, writes map[string]reload.DataWrite) (reload.Assessment, string, error) {
	if !dec.FirstSight() || dec.Stale || dec.Refused() {
		return reload.Assessment{}, "", nil
	}
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return reload.Assessment{}, "", fmt.Errorf("deployment %s/%s: spec.selector: %w", d.Namespace, d.Name, err)
	}
	list, err := kube.Read(ctx, kube.Retry{}, func(ctx context.Context) (*corev1.PodList, error) {
		return c.client.CoreV1().Pods(d.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	})
	if apierrors.IsForbidden(err) {
		return reload.Assessment{}, "pods not listed (forbidden: the first-sight check needs list pods), so no evidence of stale pods was looked for", nil
	}
	if err != nil {
		return reload.Assessment{}, "", fmt.Errorf("list pods of deployment %s/%s: %w", d.Namespace, d.Name, err)
	}
	c.metrics.podLists.Inc()
	pods := make([]*corev1.Pod, len(list.Items))
	for i := range list.Items {
		pods[i] = &list.Items[i]
	}
	rs := d.Name + "-" + planner.ComputeHash(&d.Spec.Template, d.Status.CollisionCount)
	return reload.AssessFirstSight(dec, reload.OldestPodOf(rs, pods), writes), "", nil
}
