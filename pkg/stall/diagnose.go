package stall

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// Reasons this package gives besides the kubelet's container reasons (ImagePullBackOff,
// CrashLoopBackOff, ... are passed as the kubelet reports them).
const (
	// FailedCreate: the ReplicaSet controller's pod creates are refused (quota, admission).
	// Mirrors the event reason of pkg/controller/replicaset/replica_set.go, v1.36.3.
	FailedCreate = "FailedCreate"
	// Unschedulable: kube-scheduler found no node (PodScheduled=False, reason
	// Unschedulable: corev1.PodReasonUnschedulable).
	Unschedulable = corev1.PodReasonUnschedulable
	// Unhealthy: the containers run but the pod is not Ready (a readiness probe fails). The
	// kubelet's event reason for a failed probe.
	Unhealthy = "Unhealthy"
	// NodeLost: the pod's node was deleted or is not Ready.
	NodeLost = "NodeLost"
)

// Reason is one reason the new ReplicaSet does not progress, with the pods it holds back.
type Reason struct {
	// Reason: FailedCreate, Unschedulable, Unhealthy, NodeLost, or the kubelet's container
	// reason (ImagePullBackOff, ErrImagePull, CrashLoopBackOff, CreateContainerConfigError,
	// a terminated container's Error, OOMKilled...).
	Reason string
	// Pods: how many pods are in this state; for FailedCreate, the pods the ReplicaSet lacks
	// (spec.replicas - status.replicas).
	Pods int32
	// Message: the cluster's words for the first pod in this state (the earliest, then by
	// name): the scheduler's, the kubelet's, the API server's refusal.
	Message string
	// Restarts: the highest container restart count of those pods (CrashLoopBackOff).
	Restarts int32
	// Since: when the earliest of those pods entered the state (zero: unknown; see Diagnose).
	Since time.Time
	// Object: the pod (or the ReplicaSet, for FailedCreate) the message is from.
	Object string
}

// String is the reason on one line: "3 pods ImagePullBackOff: Back-off pulling image
// \"web:nope\"", "2 pods CrashLoopBackOff (5 restarts): back-off 40s ...", "FailedCreate (2
// pods not created): pods \"web-1\" is forbidden: exceeded quota: ...".
func (r Reason) String() string {
	var head string
	switch r.Reason {
	case FailedCreate:
		head = fmt.Sprintf("%s (%d %s not created)", r.Reason, r.Pods, plural(r.Pods))
	default:
		head = fmt.Sprintf("%d %s %s", r.Pods, plural(r.Pods), r.Reason)
	}
	if r.Restarts > 0 {
		head += fmt.Sprintf(" (%d restarts)", r.Restarts)
	}
	if r.Message == "" {
		return head
	}
	return head + ": " + r.Message
}

func plural(n int32) string {
	if n == 1 {
		return "pod"
	}
	return "pods"
}

// Input is what Diagnose looks at.
type Input struct {
	// ReplicaSet is the rollout's new ReplicaSet.
	ReplicaSet *appsv1.ReplicaSet
	// Pods: the pods its selector matches; only those it controls (ownerReference UID) count.
	Pods []*corev1.Pod
	// Events: events of the ReplicaSet and of its pods (others are ignored).
	Events []*corev1.Event
	// Nodes: the nodes read by name; a name mapped to nil was read and not found (deleted).
	// A node not in the map is unknown: its pods are judged by their own status only.
	Nodes map[string]*corev1.Node
}

// Diagnose returns why the ReplicaSet of in does not progress, at now: one Reason per cause
// with its pod count, FailedCreate first, then by pods (most first) and reason. Empty when
// every pod is Ready or on its way (scheduled, being created). A Since after now (another
// machine's clock ahead) is now. Pure.
//
// Each pod not Ready (and not being deleted) gets the first that applies: NodeLost (Since:
// the node's Ready transition; for a deleted node, the pod's), Unschedulable (Since: the
// PodScheduled condition's lastTransitionTime), a container reason (init containers first;
// Since: when the pod turned not Ready, or its creation; CrashLoopBackOff: its creation, as
// readiness flips at each restart), Unhealthy (Since: when it turned not Ready).
//
// FailedCreate comes from the ReplicaSet's ReplicaFailure condition (set by the ReplicaSet
// controller while creates fail, removed when they succeed; Since: its
// lastTransitionTime), else from its latest FailedCreate event, only while the ReplicaSet
// lacks pods and the event is newer than its newest pod.
func Diagnose(in Input, now time.Time) []Reason {
	rs := in.ReplicaSet
	if rs == nil {
		return nil
	}
	var out []Reason
	if r, ok := failedCreate(rs, in.Pods, in.Events); ok {
		out = append(out, r)
	}
	byReason := map[string]*Reason{}
	for _, p := range owned(rs, in.Pods) {
		r, ok := podReason(p, in)
		if !ok {
			continue
		}
		acc := byReason[r.Reason]
		if acc == nil {
			byReason[r.Reason] = &r
			continue
		}
		acc.Pods++
		acc.Restarts = max(acc.Restarts, r.Restarts)
		if r.Since.Before(acc.Since) {
			acc.Since, acc.Message, acc.Object = r.Since, r.Message, r.Object
		}
	}
	var pods []Reason
	for _, r := range byReason {
		pods = append(pods, *r)
	}
	slices.SortFunc(pods, func(a, b Reason) int {
		return cmp.Or(cmp.Compare(b.Pods, a.Pods), strings.Compare(a.Reason, b.Reason))
	})
	out = append(out, pods...)
	for i := range out {
		if out[i].Since.After(now) { // another machine's clock ahead of ours
			out[i].Since = now
		}
	}
	return out
}

// Stuck returns the reasons of rs whose pods have been in their state for at least after
// at now (Since set and now - Since >= after): --fail-fast's test. A Since in whole seconds
// (metav1.Time, the conditions' and pods' times, is serialized to the second) may be up to
// a second before the truth: it counts from the end of that second, so that a reason is
// never stuck early (it may be up to a second late). Example: Since 12:00:10 (the pod
// turned not Ready at 12:00:10.9), after 5s: stuck from 12:00:16, not 12:00:15.
func Stuck(rs []Reason, now time.Time, after time.Duration) []Reason {
	var out []Reason
	for _, r := range rs {
		since := r.Since
		if since.Truncate(time.Second).Equal(since) {
			since = since.Add(time.Second)
		}
		if !r.Since.IsZero() && now.Sub(since) >= after {
			out = append(out, r)
		}
	}
	return out
}

// owned returns the pods rs controls, not being deleted, sorted by name.
func owned(rs *appsv1.ReplicaSet, pods []*corev1.Pod) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range pods {
		if ref := metav1.GetControllerOfNoCopy(p); ref != nil && ref.UID == rs.UID && p.DeletionTimestamp == nil {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b *corev1.Pod) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// failedCreate is the FailedCreate reason of rs, if any (see Diagnose).
func failedCreate(rs *appsv1.ReplicaSet, pods []*corev1.Pod, events []*corev1.Event) (Reason, bool) {
	missing := ptr.Deref(rs.Spec.Replicas, 1) - rs.Status.Replicas
	for _, c := range rs.Status.Conditions {
		if c.Type == appsv1.ReplicaSetReplicaFailure && c.Status == corev1.ConditionTrue {
			return Reason{Reason: FailedCreate, Pods: max(missing, 0), Message: c.Message, Since: c.LastTransitionTime.Time, Object: rs.Name}, true
		}
	}
	if missing <= 0 {
		return Reason{}, false
	}
	last := newestFailedCreate("ReplicaSet", rs.Name, rs.UID, owned(rs, pods), events)
	if last == nil {
		return Reason{}, false
	}
	return Reason{Reason: FailedCreate, Pods: missing, Message: last.Message, Since: firstSeen(last), Object: rs.Name}, true
}

// newestFailedCreate is the FailedCreate event on the object kind/name (uid) last seen the
// latest, among those last seen after the newest of its pods mine was created (an older
// failure was followed by a successful create); nil when there is none.
func newestFailedCreate(kind, name string, uid types.UID, mine []*corev1.Pod, events []*corev1.Event) *corev1.Event {
	var newest time.Time
	for _, p := range mine {
		newest = later(newest, p.CreationTimestamp.Time)
	}
	var last *corev1.Event
	for _, e := range events {
		if e.Reason != FailedCreate || !involves(e, kind, name, uid) || !lastSeen(e).After(newest) {
			continue
		}
		if last == nil || lastSeen(e).After(lastSeen(last)) {
			last = e
		}
	}
	return last
}

// podReason is why p holds the rollout back, false when it does not (Ready, or on its way).
func podReason(p *corev1.Pod, in Input) (Reason, bool) {
	if isTrue(p, corev1.PodReady) {
		return Reason{}, false
	}
	r := Reason{Pods: 1, Object: p.Name}
	if node, known := in.Nodes[p.Spec.NodeName]; p.Spec.NodeName != "" && known {
		if node == nil {
			r.Reason, r.Message, r.Since = NodeLost, fmt.Sprintf("node %s was deleted", p.Spec.NodeName), notReadySince(p)
			return r, true
		}
		if c := nodeReady(node); c == nil || c.Status != corev1.ConditionTrue {
			r.Reason, r.Message, r.Since = NodeLost, nodeMessage(node.Name, c), notReadySince(p)
			if c != nil && !c.LastTransitionTime.IsZero() {
				r.Since = c.LastTransitionTime.Time
			}
			return r, true
		}
	}
	if c := condition(p, corev1.PodScheduled); c != nil && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
		r.Reason, r.Message, r.Since = Unschedulable, c.Message, cmp.Or(c.LastTransitionTime.Time, p.CreationTimestamp.Time)
		return r, true
	}
	if reason, msg, restarts, ok := containerReason(p); ok {
		r.Reason, r.Message, r.Restarts, r.Since = reason, msg, restarts, notReadySince(p)
		if reason == "CrashLoopBackOff" {
			r.Since = p.CreationTimestamp.Time
		}
		return r, true
	}
	if allRunning(p) {
		r.Reason, r.Since = Unhealthy, notReadySince(p)
		r.Message = probeMessage(p, in.Events)
		return r, true
	}
	return Reason{}, false
}

// benign container waiting reasons: the kubelet is starting the container.
var benign = []string{"", "ContainerCreating", "PodInitializing"}

// containerReason is the first container (init containers first) waiting for a reason
// other than a benign one, or terminated other than Completed (an init container that
// completed is done); with its message and the highest restart count of the pod.
func containerReason(p *corev1.Pod) (reason, msg string, restarts int32, ok bool) {
	all := append(slices.Clone(p.Status.InitContainerStatuses), p.Status.ContainerStatuses...)
	for _, cs := range all {
		restarts = max(restarts, cs.RestartCount)
	}
	for _, cs := range all {
		if w := cs.State.Waiting; w != nil && !slices.Contains(benign, w.Reason) {
			return w.Reason, w.Message, restarts, true
		}
		if t := cs.State.Terminated; t != nil && t.Reason != "Completed" && t.ExitCode != 0 {
			msg := fmt.Sprintf("container %s exited with code %d", cs.Name, t.ExitCode)
			if t.Message != "" {
				msg += ": " + t.Message
			}
			return cmp.Or(t.Reason, "Error"), msg, restarts, true
		}
	}
	return "", "", 0, false
}

// allRunning reports whether p has containers and every one of them runs.
func allRunning(p *corev1.Pod) bool {
	if p.Status.Phase != corev1.PodRunning || len(p.Status.ContainerStatuses) == 0 {
		return false
	}
	for _, cs := range p.Status.ContainerStatuses {
		if cs.State.Running == nil {
			return false
		}
	}
	return true
}

// probeMessage is the message of p's latest Unhealthy event ("Readiness probe failed:
// ..."), else the ContainersReady condition's ("containers with unready status: [app]").
func probeMessage(p *corev1.Pod, events []*corev1.Event) string {
	var last *corev1.Event
	for _, e := range events {
		if e.Reason == Unhealthy && involves(e, "Pod", p.Name, p.UID) && (last == nil || lastSeen(e).After(lastSeen(last))) {
			last = e
		}
	}
	if last != nil {
		return last.Message
	}
	if c := condition(p, corev1.ContainersReady); c != nil && c.Message != "" {
		return "readiness probe failing: " + c.Message
	}
	return "readiness probe failing: containers running, pod not Ready"
}

// notReadySince is when p turned not Ready (its Ready condition's lastTransitionTime), or
// its creation when it has no such time.
func notReadySince(p *corev1.Pod) time.Time {
	if c := condition(p, corev1.PodReady); c != nil && c.Status != corev1.ConditionTrue && !c.LastTransitionTime.IsZero() {
		return later(c.LastTransitionTime.Time, p.CreationTimestamp.Time)
	}
	return p.CreationTimestamp.Time
}

func nodeMessage(name string, c *corev1.NodeCondition) string {
	if c == nil {
		return fmt.Sprintf("node %s has no Ready condition", name)
	}
	msg := fmt.Sprintf("node %s is not Ready (%s", name, c.Status)
	if c.Reason != "" {
		msg += ", " + c.Reason
	}
	msg += ")"
	if c.Message != "" {
		msg += ": " + c.Message
	}
	return msg
}

func nodeReady(n *corev1.Node) *corev1.NodeCondition {
	for i := range n.Status.Conditions {
		if n.Status.Conditions[i].Type == corev1.NodeReady {
			return &n.Status.Conditions[i]
		}
	}
	return nil
}

func condition(p *corev1.Pod, t corev1.PodConditionType) *corev1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == t {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

func isTrue(p *corev1.Pod, t corev1.PodConditionType) bool {
	c := condition(p, t)
	return c != nil && c.Status == corev1.ConditionTrue
}

// involves reports whether e is about the object kind/name (and uid, when the event has one).
func involves(e *corev1.Event, kind, name string, uid types.UID) bool {
	o := e.InvolvedObject
	return o.Kind == kind && o.Name == name && (o.UID == "" || o.UID == uid)
}

// lastSeen is when e was last observed: the latest of lastTimestamp, eventTime and its
// series' lastObservedTime (events.k8s.io writers set the last two).
func lastSeen(e *corev1.Event) time.Time {
	t := later(e.LastTimestamp.Time, e.EventTime.Time)
	if e.Series != nil {
		t = later(t, e.Series.LastObservedTime.Time)
	}
	return t
}

// firstSeen is when e was first observed: firstTimestamp, else eventTime.
func firstSeen(e *corev1.Event) time.Time {
	return cmp.Or(e.FirstTimestamp.Time, e.EventTime.Time)
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
