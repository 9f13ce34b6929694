// Package status says where a Deployment's rollout in flight stands against its plan: the
// pure core of `kubectl rollplan status` (state in, status out; no client, no clock of its
// own).
//
// From a Deployment and the ReplicaSets its controller claims (cluster.State), at a time the
// caller gives, it computes:
//   - kubectl's verdict, mirroring DeploymentStatusViewer.Status
//     (k8s.io/kubectl/pkg/polymorphichelpers/rollout_status.go, v0.36.3): complete, failed
//     (ProgressDeadlineExceeded) or waiting, with kubectl's own message;
//   - the plan of the whole rollout, from the state it started in (StartState: the new
//     ReplicaSet not yet there, the previous one at spec.replicas, every pod available), under
//     the timed model with --pod-ready-after (Options.UseTimedModel), else batched, and how many of its steps the live ReplicaSets have reached (step k of n);
//   - what the controller waits for now, from the planner run on the live state: a write it
//     is about to make, old pods terminating, or pods becoming available before the next
//     write the plan names;
//   - when the rollout started (the new ReplicaSet's creation, or the Progressing condition
//     the controller set when it found a reused one), when it last progressed (the
//     Progressing condition's lastUpdateTime) and when the controller would report
//     ProgressDeadlineExceeded, with a warning once half of progressDeadlineSeconds has
//     passed without progress;
//   - for a rollout held by `kubectl rollplan drive`, drive's own step and holder instead.
//
// Follow adds, from the cluster, why a rollout that made no progress does not progress
// (pkg/stall: its new ReplicaSet's refused creates, unschedulable pods, container states,
// failing readiness probes, lost nodes; Status.Stall) and, with Config.FailFast, whether
// that lasted Config.FailFastAfter (Status.FailedFast); and it keeps the sync latency fitted
// to each Deployment's last complete rollout for the ETA of the next one (Latencies).
//
// Not modelled: where the rollout started when it began from a state that was itself in
// flight (StartState assumes the previous revision was complete); pods the ReplicaSet
// controller has not created yet are counted as the ReplicaSets' status shows them.
package status
