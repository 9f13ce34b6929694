// Package watch is the one watch path of rollplan: shared informers and listers
// (client-go) for Deployments (one by name, or every one a label selector matches in a
// namespace) and their ReplicaSets (and optionally pods), a Wait that evaluates a
// condition on every change notification, and a rate-limited workqueue of namespace/name
// keys with the Deployment controller's retry shape (handleErr,
// pkg/controller/deployment/deployment_controller.go, v1.36.3).
//
// drive waits on it (a single Deployment and its ReplicaSets); a status --watch over many
// Deployments or a reload controller can list from the same cache and feed the Queue from
// its event handlers.
package watch
