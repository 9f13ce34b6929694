// Package planner is the pure engine of kubectl-rollplan: it reproduces, on the client, the
// decisions the Deployment controller of Kubernetes v1.36.3
// (k8s.io/kubernetes/pkg/controller/deployment) makes for one Deployment, and returns them as
// a Plan: every ReplicaSet replica write, in order, and how the rollout ends.
//
// State in, plan out: Simulate takes the desired Deployment and the ReplicaSets the
// controller claims, plays the controller's syncs, and between syncs plays the ReplicaSet
// controller under an explicit readiness assumption (batched, instant, never). It imports
// only k8s.io/api, k8s.io/apimachinery, k8s.io/utils and pkg/deployutil (the controller's
// deployment-util rules, which imports only the first two); no client, no clock, no I/O.
//
// Modelled, function by function (each docstring names the upstream function it mirrors):
//   - syncDeployment's order: paused -> sync(); scaling event -> sync(); Recreate or
//     RollingUpdate.
//   - RollingUpdate: ResolveFenceposts, new ReplicaSet creation in the same sync as an old
//     scale-down, NewRSNewReplicas, scaling a new ReplicaSet above spec.replicas down,
//     reconcileOldReplicaSets with cleanupUnhealthyReplicas and oldest-first scale-down, any
//     number of old ReplicaSets.
//   - Recreate: every old ReplicaSet to 0, wait for their pods, then the new one at replicas.
//   - scale(): the lone active (or latest) ReplicaSet, a saturated new ReplicaSet, and
//     proportional scaling from the max-replicas annotations with leftovers to the largest,
//     including the controller's int32 arithmetic; cleanup while paused.
//   - The new ReplicaSet's identity: template equality ignoring pod-template-hash (a rollback
//     reuses an old ReplicaSet and renumbers it, with revision-history), ComputeHash with
//     the collision count, hash collisions (one failed sync each), name truncation.
//   - cleanupDeployment under revisionHistoryLimit at completion, in the controller's order.
//
// Time (ReadinessTimed, timed.go): pods become Ready at given times after creation and
// available minReadySeconds later; an event queue over time syncs at every write and every
// pod change, plays the ReplicaSet controller pod by pod (creation at once, deletion in
// getPodsToDelete's order), and follows the Progressing condition (checkPausedConditions,
// getNewReplicaSet's conditions, syncRolloutStatus with DeploymentProgressing and
// DeploymentTimedOut) to the moment the progress deadline passes. The outcome is
// DeploymentComplete on calculateStatus (status.go) under every model.
//
// Not modelled: time under the models other than timed (a stall reports the deadline
// instead), pods that stop being Ready, node capacity, the ReplicaSet controller's
// LogarithmicScaleDown buckets and second-precision timestamps (ties among pods deleted are
// broken newest first), a ReplicaSet's own minReadySeconds (the Deployment's applies), pods
// without a ReplicaSet that counts them (Recreate's podMap), resourceVersion conflicts and
// informer lag, the deprecated rollbackTo annotation (an error), ReplicaSets
// released because their labels stopped matching, and Deployment status writes as syncs (so
// Step.Sync orders writes but is not the controller's own sync count). The conformance test
// in test/conformance runs the upstream controller beside this package on thousands of
// scenarios; the e2e tests compare it with a real cluster.
package planner
