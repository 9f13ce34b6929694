package feasibility

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// KindInput is what CheckPodOperations needs.
type KindInput struct {
	// Kind is "StatefulSet" or "DaemonSet"; Namespace and Name name the workload.
	Kind, Namespace, Name string
	// Ops are the plan's pod operations, in order (the planners'; Revision, RevisionNumber
	// and At are not read).
	Ops []planner.PodOperation
	// PodFor returns the pod a Create of op makes, as the API server receives it (the update
	// revision's template; a DaemonSet pod with the controller's tolerations and node
	// affinity to op.Node). CheckPodOperations applies the LimitRanges' defaults to a copy.
	PodFor func(op planner.PodOperation) *corev1.Pod
	// Pods are the workload's pods now: a Delete releases its pod's quota charge and room.
	Pods []*corev1.Pod
	// Replicas is the change's spec.replicas and LiveReplicas the object's now (StatefulSet;
	// nil for a DaemonSet): the HPA check compares them.
	Replicas, LiveReplicas *int32
	// Cluster holds the objects read; Checks names the checks to run (AllChecks when nil).
	Cluster Cluster
	Checks  []string
}

// CheckPodOperations runs the enabled checks on the pod operations of a StatefulSet's or
// DaemonSet's plan. It replays them in order: a Delete releases its pod's quota charge and
// its node's room; a Create is judged by quota admission (AdmitPod, with the namespace's
// LimitRange defaults) and then by the scheduler (NodeState.Fit on every node; a DaemonSet
// pod's node affinity matches its node alone). The first Create refused or fitting no node
// is the Stall: the controller creates nothing more until the cluster changes (the
// StatefulSet controller waits for that ordinal; the DaemonSet controller's surge or
// unavailable budget stays spent). Stall.Step is that Create's sync.
//
// PDBs: neither controller evicts; a budget covering the pods does not hold the rollout.
// Each one is an Info finding with the most pods the plan takes down at once. HPA: an HPA
// scaling a StatefulSet is an Info finding, and a Warning when the change sets replicas.
func CheckPodOperations(in KindInput) *Result {
	enabled := in.Checks
	if enabled == nil {
		enabled = AllChecks
	}
	on := func(c string) bool { return slices.Contains(enabled, c) }
	res := &Result{}
	c := in.Cluster
	var quotas []*quotaState
	if on(CheckQuota) {
		switch {
		case c.ResourceQuotas == nil:
			res.unchecked(CheckQuota, "%s", orReason(c.QuotaReason, "resourcequotas"))
		case c.LimitRanges == nil:
			res.unchecked(CheckQuota, "%s: pods' default requests and limits unknown", orReason(c.LimitRangeReason, "limitranges"))
		default:
			res.checked(CheckQuota)
			quotas = []*quotaState{}
			for i := range c.ResourceQuotas {
				q := &c.ResourceQuotas[i]
				quotas = append(quotas, &quotaState{q: q, hard: quotaHard(q), used: q.Status.Used.DeepCopy()})
			}
		}
	}
	var nodes []*NodeState
	if on(CheckCapacity) {
		switch {
		case c.Nodes == nil:
			res.unchecked(CheckCapacity, "%s", orReason(c.NodeReason, "nodes"))
		case c.Pods == nil:
			res.unchecked(CheckCapacity, "%s", orReason(c.PodReason, "pods"))
		default:
			res.checked(CheckCapacity)
			nodes = bindPods(c.Nodes, c.Pods)
		}
	}
	if quotas != nil || nodes != nil {
		res.replayOps(in, quotas, nodes)
	}
	if on(CheckPDB) {
		res.kindPDBs(in)
	}
	if on(CheckHPA) {
		res.kindHPAs(in)
	}
	return res
}

// bindPods returns a NodeState per node holding the non-terminal pods bound to it.
func bindPods(nodes []corev1.Node, pods []corev1.Pod) []*NodeState {
	out := make([]*NodeState, 0, len(nodes))
	by := map[string]*NodeState{}
	for i := range nodes {
		n := NewNodeState(&nodes[i])
		out = append(out, n)
		by[nodes[i].Name] = n
	}
	for i := range pods {
		if n := by[pods[i].Spec.NodeName]; n != nil && !isTerminal(&pods[i]) {
			n.AddPod(&pods[i])
		}
	}
	return out
}

// replayOps walks in.Ops against the quotas' usage and the nodes' room (nil: not checked).
func (r *Result) replayOps(in KindInput, quotas []*quotaState, nodes []*NodeState) {
	live := map[string]*corev1.Pod{}
	for _, p := range in.Pods {
		live[p.Name] = p
	}
	var limitRanges []corev1.LimitRange
	if in.Cluster.LimitRanges != nil {
		limitRanges = in.Cluster.LimitRanges
	}
	byName := map[string]*NodeState{}
	for _, n := range nodes {
		byName[n.Node.Name] = n
	}
	kind := strings.ToLower(in.Kind)
	for _, op := range in.Ops {
		switch op.Action {
		case "Delete":
			p := live[op.Pod]
			if p == nil {
				continue
			}
			delete(live, op.Pod)
			for _, q := range quotas {
				if applies, _ := QuotaApplies(q.q, p); applies {
					q.used = addMasked(q.used, Charge(p), q.hard, -1)
				}
			}
			if n := byName[p.Spec.NodeName]; n != nil && !isTerminal(p) {
				n.RemovePod(p)
			}
		case "Create":
			pod := in.PodFor(op).DeepCopy()
			pod.Name = op.Pod
			DefaultPod(pod, limitRanges)
			what := fmt.Sprintf("the create of pod %s", op.Pod)
			if op.Pod == "" {
				what = fmt.Sprintf("the create of the new pod on node %s", op.Node)
			}
			if quotas != nil {
				var applying []*quotaState
				for _, q := range quotas {
					if applies, _ := QuotaApplies(q.q, pod); applies {
						applying = append(applying, q)
					}
				}
				charge := Charge(pod)
				if msg, obj := admitCharge(applying, pod, charge); msg != "" {
					r.stallAt(op.Step, ReasonQuota, obj, CheckQuota, fmt.Sprintf("%s/%s: %s is refused: %s", kind, in.Name, what, msg))
					return
				}
				for _, q := range applying {
					q.used = addMasked(q.used, charge, q.hard, 1)
				}
			}
			if nodes != nil {
				n := bestNode(nodes, pod)
				if n == nil {
					r.stallAt(op.Step, ReasonUnschedulable, "pod/"+podLabel(op), CheckCapacity,
						fmt.Sprintf("%s/%s: %s stays Pending: %s", kind, in.Name, what, whyUnschedulable(nodes, pod)))
					return
				}
				n.AddPod(pod)
				pod.Spec.NodeName = n.Node.Name
			}
			if op.Pod != "" {
				live[op.Pod] = pod
			}
		}
	}
}

func podLabel(op planner.PodOperation) string {
	if op.Pod != "" {
		return op.Pod
	}
	return "(new pod on " + op.Node + ")"
}

// stallAt records the stall at step and its finding.
func (r *Result) stallAt(step int, reason, object, check, msg string) {
	r.Stall = &Stall{Step: step, Reason: reason, Message: msg, Objects: []string{object}}
	r.Findings = append(r.Findings, Finding{Check: check, Step: step, Severity: SeverityStall, Message: msg, Object: object})
}

// bestNode is the node the scheduler binds pod to: of the nodes it fits, the least allocated
// (NodeResourcesFit's default LeastAllocated score); nil when it fits none.
func bestNode(nodes []*NodeState, pod *corev1.Pod) *NodeState {
	var best *NodeState
	bestScore := int64(-1)
	for _, n := range nodes {
		if ok, _ := n.Fit(pod); !ok {
			continue
		}
		if s := n.leastAllocatedScore(pod); s > bestScore {
			best, bestScore = n, s
		}
	}
	return best
}

// whyUnschedulable words why pod fits no node as the scheduler's FailedScheduling event does
// ("0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't match Pod's node
// affinity/selector."). A pod whose required node affinity names its nodes (a DaemonSet
// pod's metadata.name term) has the other nodes ruled out by NodeAffinity's PreFilter, which
// the scheduler words "node(s) didn't satisfy plugin(s) [NodeAffinity]" (findNodesThatFitPod,
// pkg/scheduler/schedule_one.go, v1.36.3).
func whyUnschedulable(nodes []*NodeState, pod *corev1.Pod) string {
	counts := map[string]int{}
	named := affinityNodeNames(pod)
	for _, n := range nodes {
		if named != nil && !slices.Contains(named, n.Node.Name) {
			counts["node(s) didn't satisfy plugin(s) [NodeAffinity]"]++
			continue
		}
		if ok, why := n.Fit(pod); !ok {
			for _, r := range strings.Split(why, ", ") {
				counts[r]++
			}
		}
	}
	reasons := make([]string, 0, len(counts))
	for r, c := range counts {
		reasons = append(reasons, fmt.Sprintf("%d %s", c, r))
	}
	slices.Sort(reasons)
	return fmt.Sprintf("0/%d nodes are available: %s.", len(nodes), strings.Join(reasons, ", "))
}

// kindPDBs: an Info finding per budget covering the workload's pods, with the most pods the
// plan has deleted and not yet recreated at once: the controllers delete pods directly, not by
// eviction, so no budget holds them back (node drains are blocked meanwhile).
func (r *Result) kindPDBs(in KindInput) {
	c := in.Cluster
	if c.PodDisruptionBudgets == nil {
		r.unchecked(CheckPDB, "%s", orReason(c.PDBReason, "poddisruptionbudgets"))
		return
	}
	r.checked(CheckPDB)
	if len(in.Pods) == 0 {
		return
	}
	podLabels := labels.Set(in.Pods[0].Labels)
	down, peak := 0, 0
	for _, op := range in.Ops {
		if op.Action == "Delete" {
			down++
		} else if down > 0 {
			down--
		}
		peak = max(peak, down)
	}
	for _, pdb := range c.PodDisruptionBudgets {
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil || pdb.Spec.Selector == nil || !sel.Matches(podLabels) {
			continue
		}
		obj := "poddisruptionbudget/" + pdb.Name
		r.Findings = append(r.Findings, Finding{Check: CheckPDB, Severity: SeverityInfo, Object: obj,
			Message: fmt.Sprintf("%s covers these pods; the %s controller deletes pods without eviction, so it does not hold this rollout (up to %d pod(s) down at once); node drains are blocked meanwhile",
				obj, in.Kind, peak)})
	}
}

// kindHPAs: an HPA scaling this StatefulSet is an Info finding, and a Warning when the change
// sets spec.replicas, which the HPA overrides at its next sync.
func (r *Result) kindHPAs(in KindInput) {
	c := in.Cluster
	if c.HorizontalPodAutoscalers == nil {
		r.unchecked(CheckHPA, "%s", orReason(c.HPAReason, "horizontalpodautoscalers"))
		return
	}
	r.checked(CheckHPA)
	for _, h := range c.HorizontalPodAutoscalers {
		ref := h.Spec.ScaleTargetRef
		if ref.Kind != in.Kind || ref.Name != in.Name {
			continue
		}
		obj := "horizontalpodautoscaler/" + h.Name
		minR := ptr.Deref(h.Spec.MinReplicas, 1)
		r.Findings = append(r.Findings, Finding{Check: CheckHPA, Severity: SeverityInfo, Object: obj,
			Message: fmt.Sprintf("%s scales this %s: min %d, max %d, current %d, desired %d",
				obj, in.Kind, minR, h.Spec.MaxReplicas, h.Status.CurrentReplicas, h.Status.DesiredReplicas)})
		if in.Replicas != nil && in.LiveReplicas != nil && *in.Replicas != *in.LiveReplicas {
			r.Findings = append(r.Findings, Finding{Check: CheckHPA, Severity: SeverityWarning, Object: obj,
				Message: fmt.Sprintf("the change sets replicas %d -> %d; %s overrides it at its next sync (within %d..%d)",
					*in.LiveReplicas, *in.Replicas, obj, minR, h.Spec.MaxReplicas)})
		}
	}
}

// affinityNodeNames returns the node names a pod's required node affinity restricts it to
// when every term is a metadata.name In matchFields requirement (NodeAffinity's PreFilter
// result, pkg/scheduler/framework/plugins/nodeaffinity, v1.36.3); nil otherwise.
func affinityNodeNames(pod *corev1.Pod) []string {
	a := pod.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return nil
	}
	var names []string
	for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		found := false
		for _, f := range term.MatchFields {
			if f.Key == metav1.ObjectNameField && f.Operator == corev1.NodeSelectorOpIn {
				names, found = append(names, f.Values...), true
			}
		}
		if !found {
			return nil
		}
	}
	return names
}
