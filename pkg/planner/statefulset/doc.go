// Package statefulset is the pure planner for StatefulSets: it reproduces, on the client, the
// pod and ControllerRevision writes the StatefulSet controller of Kubernetes v1.36.3
// (k8s.io/kubernetes/pkg/controller/statefulset) makes sync by sync, and returns them as a
// Plan: podOperations [{step, action: Delete|Create, pod, node, revision, revisionNumber}] in
// the controller's order, the status of every sync, and how the rollout ends (Complete,
// Partitioned, WaitingForDelete, Stalled, Incomplete).
//
// State in, plan out: Simulate takes the desired StatefulSet (with its live status), its
// ControllerRevisions and its pods, and plays the controller's syncs; between syncs it plays
// the cluster under a readiness model (batched, instant, never; Input.Broken revisions never
// become Ready). It imports only k8s.io/api, k8s.io/apimachinery and pkg/planner/revisions.
//
// Modelled (syncOnce mirrors defaultStatefulSetControl.UpdateStatefulSet):
//   - revisions: the update revision unchanged, reused and renumbered (a rollback) or created
//     with collisions; status.currentRevision; the history limit's deletions (pkg/planner/revisions);
//   - podManagementPolicy OrderedReady (one pod at a time, ascending for creation, waiting for
//     each to be Running, Ready and available) and Parallel (every creation and scale-down in
//     one sync, ascending and descending ordinal);
//   - scale-down of ordinals beyond the replicas (highest first), spec.ordinals.start;
//   - RollingUpdate: highest ordinal first down to the partition; without maxUnavailable one
//     pod at a time, waiting for any unavailable pod above; with maxUnavailable (the
//     MaxUnavailableStatefulSet path, taken when the stored object has the field: the API
//     server drops it with the gate off, its v1.36.3 default) up to maxUnavailable minus the
//     unavailable replicas per sync; OnDelete: no update deletions;
//   - minReadySeconds (available = Ready for minReadySeconds), failed pods deleted,
//     terminating pods waited for (OrderedReady) or skipped (Parallel);
//   - the status of every sync (completeRollingUpdate, written only when it differs);
//   - the trap of kubernetes/kubernetes#67250: an OrderedReady set whose pod of a broken
//     revision is not Ready never replaces it, even after the template is reverted; the plan's
//     Stalled reason names it.
//
// Not modelled: volumeClaimTemplates and the PVC retention policy (the claim writes), pod
// identity repairs (pod updates), a StatefulSet being deleted, API errors. The node of a
// created pod is never known (the scheduler picks it): planner.PodOperation.Node stays empty.
//
// Proof: test/conformance runs the upstream control beside Simulate on generated start states
// (TestStatefulSetConformance).
package statefulset
