// Package cluster reads the state rollplan plans from: a Deployment and the ReplicaSets its
// controller would work with, either from a live cluster (LoadLive) or from a file of
// `kubectl get deploy,rs -o yaml|json` output (LoadFile, LoadReader). The command-line
// argument that names the Deployment is parsed by pkg/target.
//
// What is modelled: the ReplicaSet selection of the v1.36.3 Deployment controller
// (getReplicaSetsForDeployment, pkg/controller/deployment/deployment_controller.go, with
// ClaimReplicaSets/ClaimObject in pkg/controller/controller_ref_manager.go): a ReplicaSet in
// the Deployment's namespace whose metadata labels match the selector is claimed if its
// controller ownerReference has the Deployment's UID, or, when it has no controller at all,
// adopted (unless it or the Deployment is being deleted). ReplicaSets controlled by anything
// else are ignored. The result is sorted as the controller sorts (creation timestamp, then
// name).
//
// What is not: the controller also releases ReplicaSets it owns whose labels no longer match
// the selector; those are not listed (LoadLive lists by selector) and not reported. Adoption
// itself is a write the controller makes; here it is only flagged (State.Orphans).
package cluster
