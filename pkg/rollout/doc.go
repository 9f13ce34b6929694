// Package rollout computes what the `kubectl rollout` verbs do to a Deployment, for rollplan's history, undo, pause, resume and restart commands:
//
//	BuildHistory   kubectl rollout history: one row per revision, with what kubectl does
//	               not show (renumbered revisions, restarts, the revisionHistoryLimit cleanup)
//	PreviewUndo    kubectl rollout undo: the predicted outcome (roll back, skipped, refused,
//	               not found) and kubectl's JSON patch, byte for byte
//	PreviewPause   kubectl rollout pause, PreviewResume kubectl rollout resume,
//	PreviewRestart kubectl rollout restart: kubectl's strategic merge patch
//	Batch          kubectl rollout's loop over many Deployments: preview each, one
//	               confirmation, write each, continue past a failure, the aggregate error
//
// and the rollout plan that follows each change (pkg/planner). The patches mirror
// k8s.io/kubectl v0.36.3 (pkg/polymorphichelpers rollback.go, objectpauser.go,
// objectresumer.go, objectrestarter.go; pkg/cmd/set/helper.go CalculatePatch); Guard* add a
// resourceVersion precondition so a change made after the preview is refused by the API
// server instead of overwritten.
//
// Everything here is pure (state in: a Deployment and its ReplicaSets, read by pkg/cluster;
// values out; Batch's reads, prints and writes are functions its caller passes in) but Send,
// which sends a verb's guarded patch through pkg/kube, the write path, and words its errors
// for the user.
package rollout
