// Package feasibility checks a plan against what stops real rollouts: ResourceQuota
// admission, node capacity as kube-scheduler's filters see it, PodDisruptionBudgets and
// HorizontalPodAutoscalers. It is a pure core: objects in (the Deployment's planner input and
// the namespace's and cluster's objects, any of them absent), a Result out; the reads live in
// pkg/cluster (checkobjects.go).
//
// Entry point: Check(Input) returns the Result (checked, unchecked with a reason, the stall,
// the findings) and, when quota or capacity hold pods back, the plan replayed with those
// pods unavailable (planner.Input.PodCap), which the caller shows instead of the plan that
// assumes every pod runs.
//
// Modelled (Kubernetes v1.36.3):
//   - quota: a pod's charge is the quota pod evaluator's usage (pkg/quota/v1/evaluator/core)
//     of the pod after API defaulting (requests from limits) and the LimitRanger's defaults
//     (plugin/pkg/admission/limitranger), with init and sidecar containers and overhead
//     through k8s.io/component-helpers/resource; scopes Terminating, NotTerminating,
//     BestEffort, NotBestEffort and PriorityClass; the constraint that a quota on cpu or
//     memory needs every container to state it. The ReplicaSet controller is replayed
//     against the quotas: a write whose pods cannot all be admitted creates what fits, and
//     pods freed by scale-downs let later creates through.
//   - capacity: kube-scheduler's filters NodeResourcesFit, NodeName, NodeUnschedulable,
//     TaintToleration, NodeAffinity and NodePorts, on the nodes' allocatable minus the
//     requests of the pods bound to them; a pod that fits no node stays Pending.
//   - pdb: the strategy's disruption against each PDB selecting the pods.
//   - hpa: an HPA scaling the Deployment.
//
// Not modelled, reported as unchecked rather than ignored: quota scopes
// CrossNamespacePodAffinity and VolumeAttributesClass, quotas on other resources of the pod
// (they are charged at pod level only as listed), inter-pod affinity, topology spread,
// volumes and DRA claims, and LimitRange min/max validation. The scale-down order of the
// ReplicaSet controller is approximated (Pending pods first, then the latest placed), and so
// is placement (the node with the most room, as NodeResourcesFit's LeastAllocated score; the
// scheduler's other scores are left out).
package feasibility
