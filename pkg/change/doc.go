// Package change applies a user's change to a Deployment the way the kubectl command that
// makes it would, and returns the Deployment the API server would then store: the input for
// the planner. Every function takes the Deployment as read and returns a modified deep copy;
// none mutates its input.
//
//	SetImages     kubectl set image          (k8s.io/kubectl/pkg/cmd/set/set_image.go)
//	SetReplicas   kubectl scale
//	FromManifest  kubectl apply -f (client-side apply: three-way strategic merge)
//	ToRevision    kubectl rollout undo       (k8s.io/kubectl/pkg/polymorphichelpers/rollback.go)
//	Restart       kubectl rollout restart    (polymorphichelpers/objectrestarter.go)
//	Pause, Resume kubectl rollout pause / resume
//
// The pod-template-hash of the new ReplicaSet is computed over the server-defaulted template,
// so a change must be seen with the server's defaults. kube.DryRunUpdate asks the API server
// for them (a dry-run update, nothing persisted); ApplyDefaults is the client-side fallback when
// the dry run is not allowed. Validate repeats the apps/v1 validation that matters to the
// planner, with the API server's messages.
//
// Everything here is pure: the dry run, rollplan's one call into a cluster for a change,
// lives in pkg/kube (DryRunUpdate).
package change
