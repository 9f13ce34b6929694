package feasibility

import (
	"fmt"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// world replays the ReplicaSet controller, quota admission and the scheduler over a plan's
// ReplicaSet sizes. It is built fresh for each replay.
type world struct {
	rss    []*rsState
	quotas []*quotaState // nil: quota not checked
	nodes  []*NodeState  // nil: capacity not checked
}

// rsState is one ReplicaSet of the plan: the pod it creates and its pods now.
type rsState struct {
	name     string
	template *corev1.Pod
	charge   corev1.ResourceList
	quotas   []*quotaState // the quotas that apply to its pods
	pods     []*podState
	// refused says why the last create was refused ("" when none was).
	refused, refusedBy string
}

type podState struct {
	pod    *corev1.Pod
	charge corev1.ResourceList
	node   *NodeState // nil: Pending (or capacity not checked)
}

type quotaState struct {
	q    *corev1.ResourceQuota
	hard corev1.ResourceList
	used corev1.ResourceList
}

// shortfall is what a ReplicaSet lacks after a reconcile.
type shortfall struct {
	rs                 string
	want, have, placed int32
	refused, refusedBy string // quota message and object, when creates were refused
	pending            string // the scheduler's summary, when pods stay Pending
}

// newWorld builds the world for the plan's ReplicaSets (names), whose pods come from
// templates (by name); existing pods come from the cluster's pods when read, else each
// existing ReplicaSet is taken to have status.replicas pods, placed nowhere.
func newWorld(names []string, templates map[string]*corev1.Pod, existing map[string][]*corev1.Pod,
	quotas []corev1.ResourceQuota, nodes []corev1.Node, allPods []corev1.Pod, capacity bool) *world {
	w := &world{}
	if quotas != nil {
		w.quotas = []*quotaState{}
		for i := range quotas {
			q := &quotas[i]
			w.quotas = append(w.quotas, &quotaState{q: q, hard: quotaHard(q), used: q.Status.Used.DeepCopy()})
		}
	}
	byNode := map[string]*NodeState{}
	if capacity {
		w.nodes = []*NodeState{}
		for i := range nodes {
			n := NewNodeState(&nodes[i])
			w.nodes = append(w.nodes, n)
			byNode[nodes[i].Name] = n
		}
		for i := range allPods {
			p := &allPods[i]
			if n := byNode[p.Spec.NodeName]; n != nil && !isTerminal(p) {
				n.AddPod(p)
			}
		}
	}
	for _, name := range names {
		rs := &rsState{name: name, template: templates[name]}
		if rs.template != nil {
			rs.charge = Charge(rs.template)
			for _, q := range w.quotas {
				if applies, _ := QuotaApplies(q.q, rs.template); applies {
					rs.quotas = append(rs.quotas, q)
				}
			}
		}
		for _, p := range existing[name] {
			rs.pods = append(rs.pods, &podState{pod: p, charge: Charge(p), node: byNode[p.Spec.NodeName]})
		}
		w.rss = append(w.rss, rs)
	}
	return w
}

func tracksAny(hard corev1.ResourceList) bool {
	for n := range hard {
		if quotaTracks(n) {
			return true
		}
	}
	return false
}

func isTerminal(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

// reconcile brings every ReplicaSet to replicas (indexed like w.rss): scale-downs first
// (Pending pods first, then the newest), then Pending pods are scheduled where they now fit,
// then scale-ups create pods one by one while quota admits them, each scheduled on the node
// that fits with the most room (schedule). It returns what each ReplicaSet has placed (running) now.
//
// Mirrors, in outline, ReplicaSetController.manageReplicas (pkg/controller/replicaset): a
// refused create is retried at the controller's next sync, which the next reconcile is.
func (w *world) reconcile(replicas []int32) []int32 {
	for i, rs := range w.rss {
		for int32(len(rs.pods)) > replicas[i] {
			w.deletePod(rs)
		}
	}
	for _, rs := range w.rss {
		for _, p := range rs.pods {
			if p.node == nil {
				w.schedule(p)
			}
		}
	}
	for i, rs := range w.rss {
		rs.refused, rs.refusedBy = "", ""
		for int32(len(rs.pods)) < replicas[i] && rs.template != nil {
			if msg, by := w.admit(rs); msg != "" {
				rs.refused, rs.refusedBy = msg, by
				break
			}
			p := &podState{pod: rs.template, charge: rs.charge}
			for _, q := range rs.quotas {
				q.used = addMasked(q.used, rs.charge, q.hard, 1)
			}
			rs.pods = append(rs.pods, p)
			w.schedule(p)
		}
	}
	out := make([]int32, len(w.rss))
	for i, rs := range w.rss {
		out[i] = rs.placed(w.nodes != nil)
	}
	return out
}

func (rs *rsState) placed(capacity bool) int32 {
	if !capacity {
		return int32(len(rs.pods))
	}
	var n int32
	for _, p := range rs.pods {
		if p.node != nil {
			n++
		}
	}
	return n
}

// deletePod removes one pod of rs: a Pending one if any, else the last one placed.
func (w *world) deletePod(rs *rsState) {
	i := slices.IndexFunc(rs.pods, func(p *podState) bool { return p.node == nil && w.nodes != nil })
	if i < 0 {
		i = len(rs.pods) - 1
	}
	p := rs.pods[i]
	rs.pods = slices.Delete(rs.pods, i, i+1)
	for _, q := range rs.quotas {
		q.used = addMasked(q.used, p.charge, q.hard, -1)
	}
	if p.node != nil {
		p.node.RemovePod(p.pod)
	}
}

// schedule binds p, if capacity is checked, to the node that fits it with the most room left
// (NodeResourcesFit's default LeastAllocated score on cpu and memory; ties by name). The
// real scheduler adds other scores (balanced allocation, spreading); placement is an
// approximation, fit is not.
func (w *world) schedule(p *podState) {
	if best := bestNode(w.nodes, p.pod); best != nil {
		best.AddPod(p.pod)
		p.node = best
	}
}

// admit is AdmitPod for one new pod of rs against the quotas that apply to it, with the
// usage the replay has reached; it returns the quota's object name too.
func (w *world) admit(rs *rsState) (msg, object string) {
	return admitCharge(rs.quotas, rs.template, rs.charge)
}

// AdmitPod is quota admission's decision on creating pod (defaulted, see PodFromTemplate) in
// a namespace with quotas (their status.hard and status.used): "" when admitted, else the
// admission's message ("exceeded quota: compute, requested: pods=1, used: pods=3, limited:
// pods=3", "failed quota: compute: must specify limits.cpu for: app"). Quotas of a scope not
// modelled are skipped.
//
// Mirrors CheckRequest, k8s.io/apiserver/pkg/admission/plugin/resourcequota, v0.36.3, for a
// create with no limited resources configured.
func AdmitPod(quotas []corev1.ResourceQuota, pod *corev1.Pod) string {
	var qs []*quotaState
	for i := range quotas {
		q := &quotas[i]
		if applies, _ := QuotaApplies(q, pod); applies {
			qs = append(qs, &quotaState{q: q, hard: quotaHard(q), used: q.Status.Used})
		}
	}
	msg, _ := admitCharge(qs, pod, Charge(pod))
	return msg
}

// admitCharge checks the cpu/memory constraint of every quota, then, quota by quota, that
// used + charge stays within hard for every non-zero charge the quota limits.
func admitCharge(qs []*quotaState, pod *corev1.Pod, charge corev1.ResourceList) (msg, object string) {
	for _, q := range qs {
		if m := QuotaConstraint(q.q, pod); m != "" {
			return fmt.Sprintf("failed quota: %s: %s", q.q.Name, m), "resourcequota/" + q.q.Name
		}
	}
	for _, q := range qs {
		var requested, used, hard []string
		for _, n := range sortedNames(q.hard) {
			c, ok := charge[n]
			if !ok || c.IsZero() {
				continue
			}
			u := q.used[n]
			sum := u.DeepCopy()
			sum.Add(c)
			if h := q.hard[n]; sum.Cmp(h) > 0 {
				requested = append(requested, fmt.Sprintf("%s=%s", n, c.String()))
				if _, ok := q.used[n]; ok {
					used = append(used, fmt.Sprintf("%s=%s", n, u.String()))
				}
				hard = append(hard, fmt.Sprintf("%s=%s", n, h.String()))
			}
		}
		if len(requested) > 0 {
			return fmt.Sprintf("exceeded quota: %s, requested: %s, used: %s, limited: %s", q.q.Name,
				strings.Join(requested, ","), strings.Join(used, ","), strings.Join(hard, ",")), "resourcequota/" + q.q.Name
		}
	}
	return "", ""
}

// addMasked adds sign*charge to used for the resources hard limits.
func addMasked(used, charge, hard corev1.ResourceList, sign int) corev1.ResourceList {
	if used == nil {
		used = corev1.ResourceList{}
	}
	for n := range hard {
		c, ok := charge[n]
		if !ok {
			continue
		}
		cur, ok := used[n]
		if !ok {
			cur = *resource.NewQuantity(0, c.Format)
		}
		if sign > 0 {
			cur.Add(c)
		} else {
			cur.Sub(c)
		}
		used[n] = cur
	}
	return used
}

// shortfalls lists the ReplicaSets whose pods are not all created and placed.
func (w *world) shortfalls(replicas []int32) []shortfall {
	var out []shortfall
	for i, rs := range w.rss {
		have := int32(len(rs.pods))
		placed := rs.placed(w.nodes != nil)
		if have >= replicas[i] && placed >= replicas[i] {
			continue
		}
		sf := shortfall{rs: rs.name, want: replicas[i], have: have, placed: placed, refused: rs.refused, refusedBy: rs.refusedBy}
		if placed < have {
			sf.pending = w.whyPending(rs)
		}
		out = append(out, sf)
	}
	return out
}

// whyPending words why rs's Pending pods fit no node, as the scheduler's FailedScheduling
// event does ("0/3 nodes are available: 2 Insufficient cpu, 1 node(s) had untolerated
// taint(s).").
func (w *world) whyPending(rs *rsState) string {
	return whyUnschedulable(w.nodes, rs.template)
}

// existingPods groups the live pods (not terminal, not deleted) of namespace controlled by
// each of rss, by ReplicaSet name (a controller ownerRef of that name, and UID when both
// carry one).
func existingPods(namespace string, pods []corev1.Pod, rss []*appsv1.ReplicaSet) map[string][]*corev1.Pod {
	byName := map[string]*appsv1.ReplicaSet{}
	for _, rs := range rss {
		byName[rs.Name] = rs
	}
	out := map[string][]*corev1.Pod{}
	for i := range pods {
		p := &pods[i]
		if p.Namespace != namespace || isTerminal(p) || p.DeletionTimestamp != nil {
			continue
		}
		for _, ref := range p.OwnerReferences {
			rs := byName[ref.Name]
			if rs == nil || ref.Controller == nil || !*ref.Controller || ref.Kind != "ReplicaSet" {
				continue
			}
			if ref.UID != "" && rs.UID != "" && ref.UID != rs.UID {
				continue
			}
			out[rs.Name] = append(out[rs.Name], p)
		}
	}
	return out
}
