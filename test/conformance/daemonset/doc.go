// Package daemonset runs the real v1.36.3 DaemonSet controller (copied into
// ../upstream/daemon by ../hack/gen-upstream.sh, with the harness of
// ../harness/daemon) beside pkg/planner/daemonset on generated start states. See
// ../README.md.
package daemonset

//go:generate bash ../hack/gen-upstream.sh daemon
