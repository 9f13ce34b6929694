// Package feasibility holds the fidelity test of pkg/feasibility against upstream code:
// kube-scheduler v1.36.3's own filter plugins (NodeName, NodeUnschedulable, TaintToleration,
// NodeAffinity, NodePorts, NodeResourcesFit from k8s.io/kubernetes/pkg/scheduler/framework/
// plugins) on random nodes and pods decide the same fit as feasibility.NodeState.Fit, and the
// quota admission's pod evaluator (k8s.io/kubernetes/pkg/quota/v1/evaluator/core) after the
// API's defaulting and the LimitRanger's defaults (plugin/pkg/admission/limitranger) charges
// the same as feasibility.Charge(feasibility.PodFromTemplate(...)), with the same quota
// matching and the same cpu/memory constraint message.
package feasibility
