package feasibility

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"
	schedcorev1 "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"
)

// NodeState is one node as the scheduler's filters see it: the node, the summed requests
// of the pods bound to it, their count and their host ports.
type NodeState struct {
	Node      *corev1.Node
	Requested corev1.ResourceList
	Pods      int
	// ports counts the bound pods using each host port, "ip/protocol/port" (ip 0.0.0.0 for
	// all addresses).
	ports map[string]int
}

// NewNodeState returns the state of node with pods bound to it (pods whose spec.nodeName
// is the node's and that are not terminal).
func NewNodeState(node *corev1.Node) *NodeState {
	return &NodeState{Node: node, Requested: corev1.ResourceList{}, ports: map[string]int{}}
}

// podRequests is what NodeResourcesFit counts for pod (computePodResourceRequest and the
// NodeInfo's sum, kube-scheduler v1.36.3).
func podRequests(pod *corev1.Pod) corev1.ResourceList {
	return resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{UseStatusResources: true})
}

// AddPod binds pod to the node.
func (n *NodeState) AddPod(pod *corev1.Pod) { n.add(pod, 1) }

// RemovePod unbinds pod from the node.
func (n *NodeState) RemovePod(pod *corev1.Pod) { n.add(pod, -1) }

func (n *NodeState) add(pod *corev1.Pod, sign int) {
	n.Pods += sign
	for name, q := range podRequests(pod) {
		cur := n.Requested[name]
		if sign > 0 {
			cur.Add(q)
		} else {
			cur.Sub(q)
		}
		n.Requested[name] = cur
	}
	for _, p := range hostPorts(pod) {
		n.ports[portKey(p.HostIP, string(p.Protocol), p.HostPort)] += sign
	}
}

func portKey(ip, protocol string, port int32) string {
	if ip == "" {
		ip = "0.0.0.0"
	}
	if protocol == "" {
		protocol = string(corev1.ProtocolTCP)
	}
	return fmt.Sprintf("%s/%s/%d", ip, protocol, port)
}

// hostPorts mirrors util.GetHostPorts (pkg/scheduler/util): host ports of the containers and
// of the restartable (sidecar) init containers.
func hostPorts(pod *corev1.Pod) []corev1.ContainerPort {
	var out []corev1.ContainerPort
	for _, c := range pod.Spec.InitContainers {
		if c.RestartPolicy == nil || *c.RestartPolicy != corev1.ContainerRestartPolicyAlways {
			continue
		}
		for _, p := range c.Ports {
			if p.HostPort > 0 {
				out = append(out, p)
			}
		}
	}
	for _, c := range pod.Spec.Containers {
		for _, p := range c.Ports {
			if p.HostPort > 0 {
				out = append(out, p)
			}
		}
	}
	return out
}

// portConflict mirrors HostPortInfo.CheckConflict (k8s.io/kube-scheduler/framework).
func (n *NodeState) portConflict(p corev1.ContainerPort) bool {
	ip, proto := p.HostIP, string(p.Protocol)
	if ip == "" || ip == "0.0.0.0" {
		suffix := "/" + strings.TrimPrefix(portKey("", proto, p.HostPort), "0.0.0.0/")
		for k, used := range n.ports {
			if used > 0 && strings.HasSuffix(k, suffix) {
				return true
			}
		}
		return false
	}
	return n.ports[portKey("", proto, p.HostPort)] > 0 || n.ports[portKey(ip, proto, p.HostPort)] > 0
}

// Fit says whether pod fits node n as kube-scheduler v1.36.3's filters NodeUnschedulable,
// NodeName, TaintToleration, NodeAffinity, NodePorts and NodeResourcesFit decide (default
// feature gates, no ignored extended resources); reason is the first failing filter's
// message in the default profile's order, as the scheduler words it ("Insufficient cpu",
// "node(s) had untolerated taint(s)"; NodeResourcesFit's reasons joined by ", ").
func (n *NodeState) Fit(pod *corev1.Pod) (ok bool, reason string) {
	node := n.Node
	logger := klog.Background()
	if node.Spec.Unschedulable && !schedcorev1.TolerationsTolerateTaint(logger, pod.Spec.Tolerations,
		&corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}, false) {
		return false, "node(s) were unschedulable"
	}
	if pod.Spec.NodeName != "" && pod.Spec.NodeName != node.Name {
		return false, "node(s) didn't match the requested node name"
	}
	if _, bad := schedcorev1.FindMatchingUntoleratedTaint(logger, node.Spec.Taints, pod.Spec.Tolerations, func(t *corev1.Taint) bool {
		return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
	}, false); bad {
		return false, "node(s) had untolerated taint(s)"
	}
	if match, _ := nodeaffinity.GetRequiredNodeAffinity(pod).Match(node); !match {
		return false, "node(s) didn't match Pod's node affinity/selector"
	}
	for _, p := range hostPorts(pod) {
		if n.portConflict(p) {
			return false, "node(s) didn't have free ports for the requested pod ports"
		}
	}
	if reasons := n.insufficient(pod); len(reasons) > 0 {
		return false, strings.Join(reasons, ", ")
	}
	return true, ""
}

// insufficient mirrors fitsRequest, pkg/scheduler/framework/plugins/noderesources/fit.go.
func (n *NodeState) insufficient(pod *corev1.Pod) []string {
	var out []string
	alloc := n.Node.Status.Allocatable
	allowedPods := alloc.Pods().Value()
	if int64(n.Pods)+1 > allowedPods {
		out = append(out, "Too many pods")
	}
	req := podRequests(pod)
	any := false
	for name, q := range req {
		if isScalarOrBasic(name) && q.Sign() > 0 {
			any = true
		}
	}
	if !any {
		return out
	}
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage} {
		if exceeds(req, alloc, n.Requested, name) {
			out = append(out, "Insufficient "+string(name))
		}
	}
	for _, name := range sortedNames(req) {
		if isScalarResourceName(name) && exceeds(req, alloc, n.Requested, name) {
			out = append(out, "Insufficient "+string(name))
		}
	}
	return out
}

// exceeds: the pod requests more of name than allocatable minus requested (in milli-units
// for cpu, units otherwise, as the scheduler's Resource does).
func exceeds(req, alloc, used corev1.ResourceList, name corev1.ResourceName) bool {
	q, ok := req[name]
	if !ok || q.Sign() <= 0 {
		return false
	}
	value := func(q resource.Quantity) int64 {
		if name == corev1.ResourceCPU {
			return q.MilliValue()
		}
		return q.Value()
	}
	return value(q) > value(alloc[name])-value(used[name])
}

func isScalarOrBasic(name corev1.ResourceName) bool {
	switch name {
	case corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage:
		return true
	}
	return isScalarResourceName(name)
}

// isScalarResourceName mirrors v1helper.IsScalarResourceName: extended, hugepages,
// prefixed native and attachable-volume resources.
func isScalarResourceName(name corev1.ResourceName) bool {
	s := string(name)
	return isExtendedResourceName(name) || strings.HasPrefix(s, corev1.ResourceHugePagesPrefix) ||
		strings.Contains(s, corev1.ResourceDefaultNamespacePrefix) || strings.HasPrefix(s, "attachable-volumes-")
}

func sortedNames(l corev1.ResourceList) []corev1.ResourceName {
	out := make([]corev1.ResourceName, 0, len(l))
	for k := range l {
		out = append(out, k)
	}
	slicesSort(out)
	return out
}

// unmodelled lists the scheduling constraints of pod the capacity check does not model.
func unmodelled(pod *corev1.Pod) []string {
	var out []string
	if a := pod.Spec.Affinity; a != nil && (a.PodAffinity != nil || a.PodAntiAffinity != nil) {
		out = append(out, "inter-pod affinity")
	}
	if len(pod.Spec.TopologySpreadConstraints) > 0 {
		out = append(out, "topology spread constraints")
	}
	for _, v := range pod.Spec.Volumes {
		if v.PersistentVolumeClaim != nil || v.Ephemeral != nil {
			out = append(out, "volumes")
			break
		}
	}
	if len(pod.Spec.ResourceClaims) > 0 {
		out = append(out, "DRA resource claims")
	}
	if pod.Spec.RuntimeClassName != nil && *pod.Spec.RuntimeClassName != "" {
		out = append(out, "runtime class overhead and scheduling")
	}
	return out
}

// leastAllocatedScore mirrors the LeastAllocated strategy of NodeResourcesFit's score
// (noderesources/least_allocated.go): per resource (cpu, memory, weight 1 each),
// (allocatable - requested) * 100 / allocatable after placing pod, averaged.
func (n *NodeState) leastAllocatedScore(pod *corev1.Pod) int64 {
	req := podRequests(pod)
	var sum, weights int64
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		alloc := n.Node.Status.Allocatable[name]
		used := n.Requested[name]
		r := req[name]
		a, u := alloc.Value(), used.Value()+r.Value()
		if name == corev1.ResourceCPU {
			a, u = alloc.MilliValue(), used.MilliValue()+r.MilliValue()
		}
		weights++
		if a == 0 || u > a {
			continue
		}
		sum += (a - u) * 100 / a
	}
	return sum / weights
}
