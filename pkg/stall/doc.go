// Package stall says, from live objects, why the new ReplicaSet of a rollout does not
// progress: the pure core (Diagnose: state in, reasons out) of status's and drive's
// "why", and of their --fail-fast; read.go is the thin I/O that gathers its input.
//
// What it reads, and the reason it gives (Reason.Reason, in the cluster's own words):
//   - the ReplicaSet's ReplicaFailure condition and its FailedCreate events: the ReplicaSet
//     controller's pod creates are refused (a ResourceQuota, an admission webhook or
//     policy; manageReplicas, pkg/controller/replicaset/replica_set.go, v1.36.3) ->
//     "FailedCreate" with the API server's message;
//   - a pod's PodScheduled=False condition (reason Unschedulable) with kube-scheduler's
//     message ("0/3 nodes are available: ...") -> "Unschedulable";
//   - a container's waiting state (ImagePullBackOff, ErrImagePull, CrashLoopBackOff with the
//     restart count, CreateContainerConfigError, ...) or a terminated state other than
//     Completed, init containers first -> the kubelet's reason;
//   - a pod whose containers all run but that is not Ready -> "Unhealthy" (readiness probe
//     failing), with the probe's message from the pod's Unhealthy event when there is one;
//   - a pod bound to a node that is gone (node deleted) or not Ready -> "NodeLost".
//
// Benign states (ContainerCreating, PodInitializing, a pod just created) are not reasons:
// they are the rollout making progress. Not modelled: volume mounts (FailedMount), image
// pulls that are slow but progressing, inter-pod constraints beyond the scheduler's message.
package stall
