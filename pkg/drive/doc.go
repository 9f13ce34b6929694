// Package drive walks a live Deployment through its rollout from the client, with the
// v1.36.3 Deployment controller still running, and hands it back complete.
//
// Taking a rollout over client-side works because of what the controller does to a paused
// Deployment (syncDeployment, pkg/controller/deployment, v1.36.3): while spec.paused is
// true it does not roll out, it only scales (sync) and reports status, and with strategy
// Recreate its scaling leaves two active ReplicaSets alone. The protocol:
//
//   - Takeover, one write guarded by resourceVersion: spec.paused true, strategy
//     {type: Recreate, rollingUpdate: null}, the new template, and the drive's State as JSON
//     in the annotation rollplan.dev/drive (original strategy and paused value, target hash,
//     step, lease). Paused with strategy Recreate and two active ReplicaSets, the controller
//     leaves replicas alone; it still corrects a lone active ReplicaSet below spec.replicas
//     and scales old ReplicaSets to 0 once the new one is saturated (desired-replicas
//     annotation), which the plan never allows.
//   - The new ReplicaSet is created by the driver from the Deployment the API server stored
//     (pod-template-hash over it and status.collisionCount), controller-owned, revision max+1,
//     with at least one replica and without the desired-replicas annotation.
//   - Each step (PlanSteps, pure): scale the new ReplicaSet up, wait (watch) until its pods are
//     available, scale old ReplicaSets down, each write a JSON patch with a test of the
//     replicas it changes. Pods stay within replicas+maxSurge (one more when maxSurge is 0)
//     and availability at or above replicas-maxUnavailable.
//   - Hand-back, one write guarded by tests of metadata.generation and of the annotation:
//     original strategy, paused as it was, annotation removed. The controller then only
//     updates status; the driver waits for `kubectl rollout status` to say complete at the
//     revision, then removes the annotation copies the controller made on the ReplicaSets.
//
// State lives in the cluster (the annotation and the ReplicaSets themselves): PlanSteps is
// memoryless, so a driver that dies anywhere is continued by the next one from the actual
// state. A lease in the annotation keeps two drivers apart. Every write is conditional; an
// edit by someone else stops the driver (StoppedError) and is never overwritten, except a
// spec.replicas change, which the driver follows (re-plan). Abort walks back the same way with
// the roles swapped and restores the previous template in its hand-back. GuardPolicy is a
// ValidatingAdmissionPolicy refusing the one dangerous edit of a held Deployment: unpausing
// it while the strategy is Recreate.
//
// Faults: every read and write of a run goes through the transient-failure policy of
// pkg/kube (retry.go: kube.Retry for the step's progress timeout; a state write until the
// lease would lapse), a write retried after a lost answer is resolved with kube.Applied, and
// the waits are informers (re-listed after a 410). A run that ends with the Deployment still
// held returns a *HeldError (intact or not) for the closing block.
//
// Progress: drive prints nothing. Each line of progress is a typed Event (event.go: a Kind
// and its fields) sent to Options.Progress; pkg/printer's DriveProgress renders them (a status
// line redrawn in place on a terminal). The lease's lines are EventNote (text) for now.
//
// Not modelled: Deployments with strategy Recreate (nothing to step through), ReplicaSet
// hash collisions (refused), minReadySeconds beyond what status.availableReplicas reports.
package drive
