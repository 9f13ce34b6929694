package stall

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// Owner is a StatefulSet or DaemonSet whose pods a rollout waits for: the object the
// controller records its FailedCreate events on, and how many pods it should run.
type Owner struct {
	// Kind is the events' involvedObject.kind: "StatefulSet" or "DaemonSet".
	Kind      string
	Namespace string
	Name      string
	UID       types.UID
	// Want is the pods the controller should run: a StatefulSet's spec.replicas, a
	// DaemonSet's status.desiredNumberScheduled.
	Want int32
}

// OwnerInput is what DiagnoseOwner looks at: the owner, its pods (only those it controls,
// by ownerReference UID, count), the FailedCreate events of the owner and the Unhealthy
// events of pods, and the nodes read as in Input.Nodes.
type OwnerInput struct {
	Owner  Owner
	Pods   []*corev1.Pod
	Events []*corev1.Event
	Nodes  map[string]*corev1.Node
}

// DiagnoseOwner is Diagnose for a StatefulSet or DaemonSet at now: FailedCreate first, then
// the pods' reasons (the same rules as Diagnose: NodeLost, Unschedulable with the
// scheduler's message, container reasons, Unhealthy), by pods (most first) and reason.
//
// FailedCreate comes from the owner's latest FailedCreate event (both controllers record one
// on the owner when the API server refuses a pod: the StatefulSet controller's "create Pod
// web-2 in StatefulSet web failed error: pods \"web-2\" is forbidden: exceeded quota: ...",
// pkg/controller/statefulset/stateful_pod_control.go recordPodEvent; the DaemonSet
// controller's "Error creating: ...", pkg/controller/controller_utils.go
// RealPodControl.createPods, v1.36.3), only while the owner runs fewer pods than Want (its
// pods not being deleted) and the event was seen after its newest pod was created (a create
// that later succeeded is not a reason). Pods: the pods missing. Pure.
func DiagnoseOwner(in OwnerInput, now time.Time) []Reason {
	mine := ownedBy(in.Owner.UID, in.Pods)
	var out []Reason
	if r, ok := ownerFailedCreate(in.Owner, mine, in.Events); ok {
		out = append(out, r)
	}
	byReason := map[string]*Reason{}
	pin := Input{Events: in.Events, Nodes: in.Nodes}
	for _, p := range mine {
		r, ok := podReason(p, pin)
		if !ok {
			continue
		}
		if acc := byReason[r.Reason]; acc != nil {
			acc.Pods++
			acc.Restarts = max(acc.Restarts, r.Restarts)
			if r.Since.Before(acc.Since) {
				acc.Since, acc.Message, acc.Object = r.Since, r.Message, r.Object
			}
			continue
		}
		byReason[r.Reason] = &r
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
		if out[i].Since.After(now) {
			out[i].Since = now
		}
	}
	return out
}

// ownedBy returns the pods uid controls, not being deleted, sorted by name.
func ownedBy(uid types.UID, pods []*corev1.Pod) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range pods {
		if ref := metav1.GetControllerOfNoCopy(p); ref != nil && ref.UID == uid && p.DeletionTimestamp == nil {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b *corev1.Pod) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// ownerFailedCreate is o's FailedCreate reason, if any (see DiagnoseOwner); mine are its
// pods not being deleted.
func ownerFailedCreate(o Owner, mine []*corev1.Pod, events []*corev1.Event) (Reason, bool) {
	missing := o.Want - int32(len(mine))
	if missing <= 0 {
		return Reason{}, false
	}
	last := newestFailedCreate(o.Kind, o.Name, o.UID, mine, events)
	if last == nil {
		return Reason{}, false
	}
	return Reason{Reason: FailedCreate, Pods: missing, Message: last.Message, Since: firstSeen(last), Object: o.Name}, true
}

// ReadOwner gathers DiagnoseOwner's input for o and its pods (as read by the caller),
// reading only what the state asks for: o's FailedCreate events (one LIST, field selector
// involvedObject.kind, name and reason) when o runs fewer pods than o.Want; the pods'
// Unhealthy events when a pod runs its containers without being Ready; the nodes of the pods
// bound to one that are not Ready without a container reason (a GET per node; NotFound:
// deleted). A failed read leaves that part out (never an error): the reasons are then those
// the pods show themselves.
func ReadOwner(ctx context.Context, client kubernetes.Interface, o Owner, pods []*corev1.Pod) OwnerInput {
	in := OwnerInput{Owner: o, Pods: pods}
	mine := ownedBy(o.UID, pods)
	if int32(len(mine)) < o.Want {
		in.Events = append(in.Events, listEvents(ctx, client, o.Namespace, fields.Set{
			"involvedObject.kind": o.Kind, "involvedObject.name": o.Name, "reason": FailedCreate})...)
	}
	unhealthy, nodes := readPodContext(ctx, client, o.Namespace, mine)
	in.Events, in.Nodes = append(in.Events, unhealthy...), nodes
	return in
}
