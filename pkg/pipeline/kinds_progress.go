package pipeline

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/kubectl/pkg/util/podutils"

	"github.com/rollplan/kubectl-rollplan/pkg/kube"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/planner/statefulset"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
	"github.com/rollplan/kubectl-rollplan/pkg/workload"
	"github.com/rollplan/kubectl-rollplan/pkg/workload/live"
)

// KindProgress is where a live StatefulSet's or DaemonSet's rollout stands, for `status`:
// step Updated of Total, the pod operations the controller makes next, and what it waits
// for.
type KindProgress struct {
	// Updated of Total: StatefulSet: the ordinals from the partition up (all of them under
	// OnDelete) whose pod runs the update revision and is Ready, of those ordinals;
	// DaemonSet: the nodes that should run the pod whose pod runs the update revision and is
	// Ready, of desiredNumberScheduled.
	Updated, Total int
	// UpdateRevision is the ControllerRevision the template names.
	UpdateRevision string
	// Next are the pod operations of the controller's next sync that writes, as the
	// planner plays it from the live state with no pod becoming Ready meanwhile: what the
	// controller does now without waiting for anything. Empty when it waits.
	Next []planner.PodOperation
	// Waiting says what the controller waits for when Next is empty and the rollout is not
	// done: the pods OnDelete leaves, OrderedReady's kubernetes/kubernetes#67250 trap (the
	// planner's reason), the pods not Ready, the pods being deleted, or the planner's reason.
	Waiting string
}

// ProgressOfKind computes w's KindProgress from its owned revisions and pods and (DaemonSet)
// the cluster's nodes, at now, by playing the kind's planner on the live object (no change)
// with ReadinessNever. Errors: the planner's.
func ProgressOfKind(w workload.Workload, revs []*appsv1.ControllerRevision, pods []*corev1.Pod, nodes []*corev1.Node, now time.Time) (*KindProgress, error) {
	plan, err := PlanKind(w, revs, pods, nodes, planner.ReadinessNever, now)
	if err != nil {
		return nil, err
	}
	out := &KindProgress{UpdateRevision: plan.UpdateRevision}
	if len(plan.PodOperations) > 0 {
		first := plan.PodOperations[0].Step
		for _, op := range plan.PodOperations {
			if op.Step == first {
				out.Next = append(out.Next, op)
			}
		}
	}
	if s := w.StatefulSet; s != nil {
		out.Updated, out.Total = statefulSetUpdated(s, plan.UpdateRevision, pods)
	} else {
		out.Updated, out.Total = daemonSetUpdated(w.DaemonSet, plan.UpdateRevision, pods)
	}
	if len(out.Next) > 0 || out.Updated == out.Total && len(plan.WaitingForDelete) == 0 {
		return out, nil
	}
	unready, terminating := notReady(pods)
	switch {
	case len(plan.WaitingForDelete) > 0:
		out.Waiting = fmt.Sprintf("OnDelete: %d pod(s) keep their revision until deleted: %s", len(plan.WaitingForDelete), strings.Join(plan.WaitingForDelete, ", "))
	case strings.Contains(plan.Reason, statefulset.Issue67250):
		out.Waiting = plan.Reason
	case len(unready) > 0:
		out.Waiting = "pods to become Ready: " + strings.Join(unready, ", ")
	case len(terminating) > 0:
		out.Waiting = "pods to terminate: " + strings.Join(terminating, ", ")
	default:
		out.Waiting = plan.Reason
	}
	return out, nil
}

// statefulSetUpdated counts the ordinals from the partition up whose pod runs update and is
// Ready, and those ordinals.
func statefulSetUpdated(s *appsv1.StatefulSet, update string, pods []*corev1.Pod) (int, int) {
	replicas := 1
	if s.Spec.Replicas != nil {
		replicas = int(*s.Spec.Replicas)
	}
	start := 0
	if s.Spec.Ordinals != nil {
		start = int(s.Spec.Ordinals.Start)
	}
	partition := 0
	if ru := s.Spec.UpdateStrategy.RollingUpdate; s.Spec.UpdateStrategy.Type != appsv1.OnDeleteStatefulSetStrategyType && ru != nil && ru.Partition != nil {
		partition = min(int(*ru.Partition), replicas)
	}
	updated := 0
	for _, p := range pods {
		i := strings.LastIndexByte(p.Name, '-')
		o, err := strconv.Atoi(p.Name[i+1:])
		if i < 0 || err != nil || o < start+partition || o >= start+replicas {
			continue
		}
		if p.DeletionTimestamp == nil && p.Labels[appsv1.ControllerRevisionHashLabelKey] == update && podutils.IsPodReady(p) {
			updated++
		}
	}
	return updated, replicas - partition
}

// daemonSetUpdated counts the DaemonSet's pods that run update (their
// controller-revision-hash is the revision name's suffix) and are Ready, at most one per
// node, and desiredNumberScheduled.
func daemonSetUpdated(d *appsv1.DaemonSet, update string, pods []*corev1.Pod) (int, int) {
	hash := strings.TrimPrefix(update, d.Name+"-")
	nodes := map[string]bool{}
	for _, p := range pods {
		if p.DeletionTimestamp == nil && p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] == hash && podutils.IsPodReady(p) {
			nodes[p.Spec.NodeName] = true
		}
	}
	return len(nodes), int(d.Status.DesiredNumberScheduled)
}

// notReady names the pods not Ready (and not being deleted), and the pods being deleted,
// each sorted.
func notReady(pods []*corev1.Pod) (unready, terminating []string) {
	for _, p := range pods {
		switch {
		case p.DeletionTimestamp != nil:
			terminating = append(terminating, p.Name)
		case !podutils.IsPodReady(p):
			unready = append(unready, p.Name)
		}
	}
	sort.Strings(unready)
	sort.Strings(terminating)
	return unready, terminating
}

// ReadKindProgress reads ref (its ControllerRevisions and pods, and for a DaemonSet the
// nodes: live.Load, live.Nodes) and returns its ProgressOfKind at now. Errors: the reads' and
// the planner's.
func ReadKindProgress(ctx context.Context, client kubernetes.Interface, ref target.KindRef, now time.Time) (*KindProgress, error) {
	st, err := live.Load(ctx, client, ref)
	if err != nil {
		return nil, err
	}
	var nodes []*corev1.Node
	if ref.Kind == target.KindDaemonSet {
		if nodes, err = live.Nodes(ctx, client, kube.Retry{}); err != nil {
			return nil, fmt.Errorf("%s: %w", ref, err)
		}
	}
	return ProgressOfKind(st.Workload, workload.Owned(st.Workload, st.Revisions), workload.Owned(st.Workload, st.Pods), nodes, now)
}
