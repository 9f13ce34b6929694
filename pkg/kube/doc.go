// Package kube is rollplan's one write path to the API server: every create, update and
// patch that rollplan makes goes through it.
//
// It holds:
//   - the field manager every write is recorded under (FieldManager) and the write options
//     (Options: field manager, server-side dry run);
//   - guarded writes: JSON patches built from pkg/jsonpatch operations whose `test` operations hold the
//     object to what was read (PatchDeployment, PatchReplicaSet, ScaleReplicaSet), and
//     patches held to a resourceVersion, renewed when only the status moved
//     (PatchDeploymentGuarded); updates held by their resourceVersion (UpdateDeployment) and
//     creates (CreateReplicaSet); create-or-update and delete of any typed object
//     (CreateOrUpdate, DeleteIfExists: the drive guard's policy and binding);
//   - the error classes of a write (ErrGuard, and Classify: guard, conflict, not found,
//     forbidden, transient);
//   - the one retry policy (Backoff) and its runners (OnError, RetryOnConflict), built on
//     k8s.io/client-go/util/retry and k8s.io/apimachinery/pkg/util/wait;
//   - the transient-failure policy (IsTransient, TransientBackoff, Retry: capped exponential
//     backoff with jitter and the server's Retry-After, until a deadline) and Applied, which
//     tells a write refused by its guard after a lost answer from one never made (a write is
//     never applied twice);
//   - the server-side dry run of a Deployment (DryRunUpdate);
//   - Events through client-go's event broadcaster (Recorder).
//
// It does not decide what to write: the verbs (pkg/rollout, pkg/change) and the engine
// (pkg/drive) build the objects and patches; reads live in pkg/cluster.
package kube
