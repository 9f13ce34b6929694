// Package daemonset is the pure DaemonSet planner: it reproduces, on the client, the pod
// operations the DaemonSet controller of Kubernetes v1.36.3 (k8s.io/kubernetes/pkg/controller/daemon)
// makes sync by sync, and returns them as a Plan.
//
// State in, plan out: Simulate takes the desired DaemonSet, its ControllerRevisions, the nodes
// and the DaemonSet's pods (with readiness), and plays the controller's syncs under a readiness
// assumption (batched, instant, never, timed; the names of pkg/planner). No client, no clock,
// no I/O.
//
// The timed model (timed.go) is the StatefulSet planner's world clock: a new pod is Ready
// Input.ReadyAfter after its creation, available minReadySeconds later; each sync that writes
// costs Input.SyncLatency; delete-first (maxUnavailable) and surge (maxSurge) nodes progress
// in parallel. The node order is not predicted, the duration is: every sync's time
// (Plan.SyncAt) and when the last pod is available (Plan.Duration).
//
// Modelled (each docstring names the upstream function it mirrors):
//   - which nodes run a pod: NodeShouldRunDaemonPod with the tolerations the controller adds
//     (not-ready, unreachable, the pressure and unschedulable taints, network-unavailable for
//     hostNetwork), spec.nodeName, nodeSelector and required node affinity through
//     k8s.io/component-helpers' scheduling helpers; a pod may stay on a node whose only
//     untolerated taints are NoSchedule ones (NodeReport.Reason says why a node gets none);
//   - manage: creates on nodes without a pod, deletes of failed, excess and misscheduled pods,
//     surge pruning (the oldest old pod goes once the new one is available);
//   - RollingUpdate (only in a sync where manage wrote nothing, as the expectations make it):
//     maxSurge 0 deletes first within maxUnavailable, maxSurge > 0 creates first within
//     maxSurge; both 0 counts as maxUnavailable 1; OnDelete does nothing (waitingForDelete);
//   - revisions through pkg/planner/revisions: reuse and renumbering on a rollback, hash
//     collisions (a failed sync each), duplicates, cleanupHistory; burstReplicas (250).
//
// The node order: the controller walks nodes in Go map order, which is random. Where it may
// take only some of several candidates (maxUnavailable, maxSurge, burstReplicas), which nodes
// it takes depends on that order: the plan takes them by name (or Input.NodeOrder) and names
// the first such sync (Plan.OrderMattersFrom). The operations per node and the counts per sync
// do not depend on it.
//
// Not modelled: the failed-pod backoff (a pod failing again and again), pods terminating
// gracefully (a deleted pod is gone by the next sync; a pod already terminating at the start
// is gone after the first sync), the scheduler failing to bind a created pod, a spread of
// ready times across pods (the timed model gives every pod the same ReadyAfter), a template
// generation annotation older than the hash label scheme beyond IsPodUpdated.
//
// Proven against the upstream controller by test/conformance/daemonset (make conformance),
// under the four readiness models; under timed every sync's time too, on the controller's
// fake clock.
package daemonset
