package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/change"
	"github.com/rollplan/kubectl-rollplan/pkg/estimate"
	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
	"github.com/rollplan/kubectl-rollplan/pkg/kube"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/planner/daemonset"
	"github.com/rollplan/kubectl-rollplan/pkg/planner/statefulset"
	"github.com/rollplan/kubectl-rollplan/pkg/workload"
)

// KindChange is the change a preview of a StatefulSet or DaemonSet plans: the pod template's
// images (kubectl set image's CONTAINER=IMAGE pairs), a restart (kubectl rollout restart's
// annotation at Now), a rollback (Undo, to ToRevision, 0 the previous) and, for
// StatefulSets, spec.replicas and spec.updateStrategy.rollingUpdate.partition.
type KindChange struct {
	Images     []string
	Restart    bool
	Undo       bool
	ToRevision int64
	Replicas   *int32
	Partition  *int32
	Now        time.Time
	// ReadyAfter and SyncLatency are the timed model's (readiness timed): --pod-ready-after
	// (nil: measured on the workload's own Ready pods) and --sync-latency (nil: 0).
	ReadyAfter  *estimate.Estimate
	SyncLatency *estimate.Latency
}

// KindTiming is the timed model's flags for a StatefulSet or DaemonSet: --pod-ready-after
// (nil: measured on the workload's own Ready pods, estimate.FromWorkloadPods) and
// --sync-latency (nil: 0, not fitted for these kinds).
type KindTiming struct {
	ReadyAfter  *estimate.Estimate
	SyncLatency *estimate.Latency
}

// ParseKindTiming reads --pod-ready-after and --sync-latency (each empty: not given) into a
// KindTiming. Errors: estimate.ParseReadyAfter's and estimate.ParseSyncLatency's.
func ParseKindTiming(podReadyAfter, syncLatency string) (KindTiming, error) {
	var t KindTiming
	if podReadyAfter != "" {
		e, err := estimate.ParseReadyAfter(podReadyAfter)
		if err != nil {
			return t, err
		}
		t.ReadyAfter = &e
	}
	if syncLatency != "" {
		l, err := estimate.ParseSyncLatency(syncLatency)
		if err != nil {
			return t, err
		}
		t.SyncLatency = &l
	}
	return t, nil
}

// Timing is c's timed model flags.
func (c KindChange) Timing() KindTiming {
	return KindTiming{ReadyAfter: c.ReadyAfter, SyncLatency: c.SyncLatency}
}

// resolve returns the timed model's inputs for the workload ref (its pods given): the
// estimate (--pod-ready-after, else measured on pods) with its Latency, and the latency per
// write. Errors: no Ready pod to measure (give --pod-ready-after).
func (t KindTiming) resolve(ref string, pods []*corev1.Pod) (estimate.Estimate, time.Duration, error) {
	var e estimate.Estimate
	if t.ReadyAfter != nil {
		e = *t.ReadyAfter
	} else {
		var err error
		if e, err = estimate.FromWorkloadPods(pods, ref); err != nil {
			return e, 0, fmt.Errorf("%s: --readiness timed: %w: give --pod-ready-after", ref, err)
		}
	}
	if t.SyncLatency == nil {
		e.Latency = estimate.Latency{Why: "no --sync-latency: 0 (not fitted for StatefulSets and DaemonSets)"}
		return e, 0, nil
	}
	e.Latency = *t.SyncLatency
	return e, t.SyncLatency.PerWrite, nil
}

// planKindAs plans desired with PlanKindTimed under readiness timed (t resolved on pods),
// else with PlanKind.
func planKindAs(desired workload.Workload, revs []*appsv1.ControllerRevision, pods []*corev1.Pod, nodes []*corev1.Node, r planner.Readiness, now time.Time, t KindTiming) (*KindPlan, error) {
	if r != planner.ReadinessTimed {
		return PlanKind(desired, revs, pods, nodes, r, now)
	}
	e, latency, err := t.resolve(desired.Ref().String(), pods)
	if err != nil {
		return nil, err
	}
	return PlanKindTimed(desired, revs, pods, nodes, e, latency, now)
}

// WorkloadRef names the planned object.
type WorkloadRef struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

// KindPlan is the plan of one StatefulSet or DaemonSet: the update revision (name and number
// before it exists), the pod operations in the controller's order, the pods OnDelete leaves
// (waitingForDelete), how it ends, and for a DaemonSet the nodes and why some get no pod.
type KindPlan struct {
	Workload             WorkloadRef            `json:"workload"`
	UpdateRevision       string                 `json:"updateRevision"`
	UpdateRevisionNumber int64                  `json:"updateRevisionNumber"`
	Strategy             string                 `json:"strategy"`
	Partition            int32                  `json:"partition,omitempty"`
	Outcome              string                 `json:"outcome"`
	Reason               string                 `json:"reason,omitempty"`
	PodOperations        []planner.PodOperation `json:"podOperations"`
	WaitingForDelete     []string               `json:"waitingForDelete,omitempty"`
	Nodes                []daemonset.NodeReport `json:"nodes,omitempty"`
	// MaxSurge and MaxUnavailable are a DaemonSet's bounds in nodes (both 0 counts as
	// maxUnavailable 1): maxSurge > 0 creates the new pod first, else deletes first.
	MaxSurge       int `json:"maxSurge,omitempty"`
	MaxUnavailable int `json:"maxUnavailable,omitempty"`
	Syncs          int `json:"syncs"`
	// Duration is, under the timed model, when the last pod is available, from the change;
	// Estimate and MinReadySeconds are the model's inputs (RolloutPlan.timing).
	Duration        *metav1.Duration   `json:"duration,omitempty"`
	Estimate        *estimate.Estimate `json:"-"`
	MinReadySeconds int32              `json:"-"`
	// Feasibility is what the feasibility checks found (Config.CheckKind); nil when none ran
	// or they had nothing to say.
	Feasibility *feasibility.Result `json:"feasibility,omitempty"`

	// desired is the object planned, pods its pods when planned, liveReplicas a
	// StatefulSet's spec.replicas before the change (nil: a new object, or a DaemonSet):
	// what CheckKind replays the pod operations against.
	desired      workload.Workload
	pods         []*corev1.Pod
	liveReplicas *int32
}

// Modify returns w with c applied to a copy (w itself is not changed). revs are w's
// ControllerRevisions (a rollback's source). Errors: an unknown container, a revision not
// found, a rollback to the current template, replicas or partition on a DaemonSet.
func (c KindChange) Modify(w workload.Workload, revs []*appsv1.ControllerRevision) (workload.Workload, error) {
	if w.DaemonSet != nil && (c.Replicas != nil || c.Partition != nil) {
		return w, errors.New("--replicas and --partition are StatefulSet fields: drop them for a DaemonSet")
	}
	orig, err := json.Marshal(w.Object())
	if err != nil {
		return w, err
	}
	cur := orig
	var patches [][]byte
	if c.Undo {
		u, err := workload.PreviewUndo(w, revs, c.ToRevision)
		if err != nil {
			return w, err
		}
		if u.Skipped {
			return w, fmt.Errorf("the pod template already is revision %d: nothing to roll back", u.Revision)
		}
		patches = append(patches, u.Patch)
	}
	if c.Restart {
		p, err := workload.RestartPatch(w, c.Now)
		if err != nil {
			return w, err
		}
		patches = append(patches, p)
	}
	for _, p := range patches {
		if cur, err = strategicpatch.StrategicMergePatch(cur, p, w.Object()); err != nil {
			return w, err
		}
	}
	var out workload.Workload
	if w.StatefulSet != nil {
		out.StatefulSet = &appsv1.StatefulSet{}
		err = json.Unmarshal(cur, out.StatefulSet)
	} else {
		out.DaemonSet = &appsv1.DaemonSet{}
		err = json.Unmarshal(cur, out.DaemonSet)
	}
	if err != nil {
		return w, err
	}
	if len(c.Images) > 0 {
		d, err := change.SetImages(&appsv1.Deployment{Spec: appsv1.DeploymentSpec{Template: *out.Template()}}, c.Images)
		if err != nil {
			return w, err
		}
		*out.Template() = d.Spec.Template
	}
	if s := out.StatefulSet; s != nil {
		if c.Replicas != nil {
			s.Spec.Replicas = c.Replicas
		}
		if c.Partition != nil {
			if s.Spec.UpdateStrategy.Type == appsv1.OnDeleteStatefulSetStrategyType {
				return w, errors.New("--partition: the StatefulSet's updateStrategy is OnDelete, which has no partition")
			}
			if s.Spec.UpdateStrategy.RollingUpdate == nil {
				s.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{}
			}
			s.Spec.UpdateStrategy.RollingUpdate.Partition = c.Partition
		}
	}
	return out, nil
}

// KindPatch returns the strategic merge patch from w to modified (Modify's result).
func KindPatch(w, modified workload.Workload) ([]byte, error) {
	a, err := json.Marshal(w.Object())
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(modified.Object())
	if err != nil {
		return nil, err
	}
	return strategicpatch.CreateTwoWayMergePatch(a, b, w.Object())
}

// DryRunKind sends patch to w's object as a server-side dry run and returns what the server
// would store (defaults, and fields dropped by a gate off, such as a StatefulSet's
// maxUnavailable without MaxUnavailableStatefulSet). Errors: the server's, one line.
func DryRunKind(ctx context.Context, client kubernetes.Interface, w workload.Workload, patch []byte) (workload.Workload, error) {
	ref := w.Ref()
	opts := metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}, FieldManager: "kubectl-rollplan"}
	return kube.Read(ctx, kube.Retry{}, func(ctx context.Context) (workload.Workload, error) {
		if w.StatefulSet != nil {
			s, err := client.AppsV1().StatefulSets(ref.Namespace).Patch(ctx, ref.Name, types.StrategicMergePatchType, patch, opts)
			if err != nil {
				return w, fmt.Errorf("server dry run of the change to %s in namespace %q: %w", ref, ref.Namespace, err)
			}
			return workload.Workload{StatefulSet: s}, nil
		}
		d, err := client.AppsV1().DaemonSets(ref.Namespace).Patch(ctx, ref.Name, types.StrategicMergePatchType, patch, opts)
		if err != nil {
			return w, fmt.Errorf("server dry run of the change to %s in namespace %q: %w", ref, ref.Namespace, err)
		}
		return workload.Workload{DaemonSet: d}, nil
	})
}

// PlanKind plans desired (the object as the server stores it after the change) from its
// revisions, pods and (DaemonSet) nodes with the kind's planner (pkg/planner/statefulset,
// pkg/planner/daemonset). Errors: the planner's; ReadinessTimed (use PlanKindTimed).
func PlanKind(desired workload.Workload, revs []*appsv1.ControllerRevision, pods []*corev1.Pod, nodes []*corev1.Node, r planner.Readiness, now time.Time) (*KindPlan, error) {
	return planKind(desired, revs, pods, nodes, r, now, nil)
}

// PlanKindTimed is PlanKind under the timed model (the statefulset and daemonset planners'
// ReadinessTimed): a pod is Ready e.Median after its creation, available minReadySeconds
// later, each write is followed by the next sync latency later. Sets Estimate, each
// operation's At and Duration (when the last pod is available; nil for a DaemonSet left
// WaitingForDelete under OnDelete, which has no end). Errors: the planner's.
func PlanKindTimed(desired workload.Workload, revs []*appsv1.ControllerRevision, pods []*corev1.Pod, nodes []*corev1.Node, e estimate.Estimate, latency time.Duration, now time.Time) (*KindPlan, error) {
	return planKind(desired, revs, pods, nodes, planner.ReadinessTimed, now, &kindTiming{e: e, latency: latency})
}

type kindTiming struct {
	e       estimate.Estimate
	latency time.Duration
}

func planKind(desired workload.Workload, revs []*appsv1.ControllerRevision, pods []*corev1.Pod, nodes []*corev1.Node, r planner.Readiness, now time.Time, timing *kindTiming) (*KindPlan, error) {
	ref := desired.Ref()
	if r == "" {
		r = planner.ReadinessBatched
	}
	if r == planner.ReadinessTimed && timing == nil {
		return nil, fmt.Errorf("%s: --readiness timed needs the timed model's inputs (PlanKindTimed)", ref)
	}
	out := &KindPlan{Workload: WorkloadRef{Kind: string(ref.Kind), Namespace: ref.Namespace, Name: ref.Name}, Strategy: desired.UpdateStrategy(),
		desired: desired, pods: pods}
	if s := desired.StatefulSet; s != nil {
		if ru := s.Spec.UpdateStrategy.RollingUpdate; ru != nil && ru.Partition != nil {
			out.Partition = *ru.Partition
		}
		in := statefulset.Input{StatefulSet: s, Revisions: revs, Pods: pods, Now: now, Readiness: statefulset.Readiness(r)}
		if timing != nil {
			in.ReadyAfter, in.SyncLatency = timing.e.Median, timing.latency
		}
		p, err := statefulset.Simulate(in)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", ref, err)
		}
		if timing != nil {
			out.Duration, out.Estimate, out.MinReadySeconds = &metav1.Duration{Duration: p.Duration}, &timing.e, s.Spec.MinReadySeconds
		}
		out.UpdateRevision, out.UpdateRevisionNumber = p.UpdateRevision, p.UpdateRevisionNumber
		out.Outcome, out.Reason, out.WaitingForDelete, out.Syncs = string(p.Outcome), p.Reason, p.WaitingForDelete, p.Syncs
		out.PodOperations = timedOps(p.PodOperations, p.SyncAt, timing != nil)
		return out, nil
	}
	in := daemonset.Input{DaemonSet: desired.DaemonSet, Revisions: revs, Pods: pods, Nodes: nodes, Readiness: r, Now: metav1.NewTime(now)}
	if timing != nil {
		in.ReadyAfter, in.SyncLatency = timing.e.Median, timing.latency
	}
	p, err := daemonset.Simulate(in)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ref, err)
	}
	if timing != nil {
		out.Estimate, out.MinReadySeconds = &timing.e, desired.DaemonSet.Spec.MinReadySeconds
		if p.Outcome != daemonset.OutcomeWaitingForDelete {
			out.Duration = &metav1.Duration{Duration: p.Duration}
		}
	}
	out.UpdateRevision, out.UpdateRevisionNumber = p.UpdateRevision.Name, p.UpdateRevision.Number
	out.Outcome, out.Syncs, out.Nodes = string(p.Outcome), p.Syncs, p.Nodes
	out.MaxSurge, out.MaxUnavailable = p.MaxSurge, p.MaxUnavailable
	out.PodOperations = timedOps(p.PodOperations, p.SyncAt, timing != nil)
	for _, w := range p.WaitingForDelete {
		out.WaitingForDelete = append(out.WaitingForDelete, w.Pod)
	}
	return out, nil
}

// timedOps returns a copy of a planner's ops (never nil: the JSON lists "podOperations": []),
// under the timed model (timed) with At set to when each op's sync runs (syncAt[i]: sync i+1).
func timedOps(ops []planner.PodOperation, syncAt []time.Duration, timed bool) []planner.PodOperation {
	out := make([]planner.PodOperation, 0, len(ops))
	for _, op := range ops {
		if timed && op.Step <= len(syncAt) {
			op.At = &metav1.Duration{Duration: syncAt[op.Step-1]}
		}
		out = append(out, op)
	}
	return out
}
