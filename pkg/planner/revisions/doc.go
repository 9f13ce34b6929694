// Package revisions reproduces, on the client, how the v1.36.3 StatefulSet and DaemonSet
// controllers name, number, match, reuse and delete ControllerRevisions. Pure: it imports only
// k8s.io/api, k8s.io/apimachinery, k8s.io/utils and pkg/planner (for the pod-template hash the
// DaemonSet controller names its revisions with).
//
// Modelled (each docstring names the upstream function it mirrors):
//   - the revision data both controllers store: a strategic merge patch that replaces
//     spec.template (getPatch of pkg/controller/statefulset and pkg/controller/daemon);
//   - StatefulSet names: history.HashControllerRevision (32-bit FNV-1, not FNV-1a, over the
//     patch, then the collision count as decimal text) and history.ControllerRevisionName;
//     DaemonSet names: "<name>-" + controller.ComputeHash(template, collisionCount);
//   - which revision a StatefulSet's template resolves to (getStatefulSetRevisions): the
//     latest one unchanged, an older equal one reused and renumbered to max+1 (a rollback),
//     or a new one, skipping names taken by other data (collisionCount);
//   - the DaemonSet's match (Match, byte equality of the patch) and renumbering
//     (constructHistory);
//   - the revision history limit's deletions: truncateHistory (StatefulSet) and
//     cleanupHistory (DaemonSet).
//
// Not modelled: StatefulSetSemanticRevisionComparison's defaulting step (the upstream check
// applies the latest revision, runs the API defaulter and re-encodes; this package decodes and
// re-encodes the stored template without the defaulter, so a revision recorded by an older
// server whose template lacks defaults that the current one adds is not recognised as equal);
// revision adoption and release (ownerReferences); ControllerRevisions whose Data holds an
// Object instead of Raw bytes (the controllers only write Raw).
package revisions
