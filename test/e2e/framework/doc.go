// Package framework runs rollplan's end-to-end tests against a real local cluster: a real
// kube-apiserver and kube-controller-manager (deployment and replicaset controllers) of
// Kubernetes v1.36.3, with kwok faking nodes and pods (hack/cluster/up.sh).
//
// A test package uses it from TestMain, and each test asks for the cluster:
//
//	func TestMain(m *testing.M) { framework.Main(m) }
//
//	func TestX(t *testing.T) {
//		c := framework.Get(t)
//		ns := c.Namespace(t)
//		d := c.CreateDeployment(t, ns, framework.NewDeployment("web").Replicas(10).Image("nginx:1.18"))
//		c.WaitForRollout(t, ns, d.Name, time.Minute)
//	}
//
// Which cluster:
//   - ROLLPLAN_E2E_KUBECONFIG=PATH: use that running cluster (make e2e starts one for the
//     whole run and sets it), and leave it running.
//   - otherwise: the first Get starts a private cluster with hack/cluster/up.sh in a fresh
//     state dir under _output/ (building the binaries first if needed), and Main stops it and
//     removes the state after the tests (also on SIGINT/SIGTERM; a `go test -timeout` panic
//     leaves it running: stop it with ROLLPLAN_CLUSTER_DIR=<dir> hack/cluster/down.sh, the
//     dir is logged).
//
// If the cluster binaries cannot be built, tests skip with the reason, unless
// ROLLPLAN_E2E_REQUIRED=1 (set by `make e2e`), where they fail. A cluster that builds but
// does not start always fails the tests.
//
// Pods are fake: kwok makes every scheduled pod Running and Ready at once, except pods that
// carry the label HoldLabel (non-empty value), which stay Pending and not Ready until the
// label is removed (ReleasePods, ReleaseReplicaSet, AutoRelease). DeploymentBuilder.Hold puts
// the label on a pod template; it is not part of the selector, so releasing a pod does not
// orphan it.
//
// A second (third, ...) cluster for the multi-context tests: SharedAPIServer(t, name) starts
// etcd + kube-apiserver alone (hack/cluster/up.sh --api-only, about 5 s), shared by name
// between the tests of the process and stopped by Main; CreateSettled writes there the state
// a finished rollout leaves (no controller runs). WriteKubeconfig merges the clusters'
// kubeconfigs into one with a context each, Unreachable adding one whose server refuses.
// Like the private cluster, a server outlives a `go test -timeout` panic: stop it with
// ROLLPLAN_CLUSTER_DIR=_output/e2e-apiserver-<n> hack/cluster/down.sh.
//
// The test files of test/e2e carry the build tag e2e; this package has none, so
// `go vet ./...` and `go test ./...` check it without starting anything.
package framework
