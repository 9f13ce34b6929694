// Package reload is the pure decision core of config-change restarts (issue 9): which
// ConfigMaps and Secrets a Deployment's pods see, whether the content they see changed since
// the pods were last restarted for it, and the guarded patch that restarts them.
//
// State in, decision out: it imports only k8s.io/api, k8s.io/apimachinery and k8s.io/utils;
// no client, no clock, no I/O, no cobra. Reads, writes and the command live elsewhere
// (pkg/cluster or pkg/watch read the objects, pkg/kube sends RestartPatch).
//
// Modelled:
//   - References: every ConfigMap and Secret a pod of a template sees, from containers and
//     initContainers (env key references: that key; envFrom: every key) and volumes
//     (configMap, secret, projected sources: their items' keys or every key), optional or
//     not, merged per object. imagePullSecrets do not count.
//   - Checksums: sha256 over exactly the keys a pod sees, with an unambiguous framing;
//     HMAC-SHA256 keyed with the Secret's UID for Secrets. An Object keeps one digest per
//     key instead of the value, so a watcher can drop config data from its cache.
//   - The pod template annotation rollplan.dev/config-checksums (sorted JSON object) that a
//     restart writes, as XING's kubernetes-deployment-restart-controller keeps its
//     checksums on the Deployment: state lives in the cluster, so nothing is missed while
//     no watcher runs. Identical content gives an identical template, so restoring old
//     config reuses the old ReplicaSet (a true config rollback).
//   - Decide: per reference current, changed, missing or unrecorded; stale; refusal when a
//     non-optional object is missing (the new pods would not start); the new annotation.
//   - Opt-in (OptedIn): rollplan.dev/reload, and Stakater Reloader's and XING's annotations.
//   - RestartPatch: an RFC 6902 JSON patch setting only that annotation, guarded by tests of
//     the Deployment's uid, generation and current annotation value; Restarted, the
//     Deployment it leaves (what the planner simulates).
//   - Adoption: AdoptPatch records the checksums in the Deployment's own annotation
//     rollplan.dev/adopted-config-checksums without restarting; Decide reads it when the
//     template has no record.
//   - First sight (AssessFirstSight): with nothing recorded, a reference whose data was last
//     written (LastDataWrite of its managedFields) after the oldest pod of the current
//     ReplicaSet was created makes the Deployment "possibly stale since T", with that
//     evidence.
//   - ConfigChanges: which references changed between two revisions' templates (history's
//     CONFIG column); ChangesFor: whether a Deployment's pods would see an object's change
//     (preview of a ConfigMap or Secret manifest).
//
// Not modelled here: reads, writes, pacing and the command (pkg/cmd/reload.go, pkg/cluster,
// pkg/kube); the watch mode. Per-reference origin (which container or volume) is not kept:
// a refusal names the object, not the container.
package reload
