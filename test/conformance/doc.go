// Package conformance runs the real Kubernetes v1.36.3 Deployment controller in-process beside
// the planner and requires both to make exactly the same ReplicaSet writes.
//
// The controller's syncDeployment is unexported, so hack/gen-upstream.sh copies the non-test
// files of k8s.io/kubernetes/pkg/controller/deployment from the Go module cache into
// upstream/deployment/ (git-ignored), together with the committed harness
// (harness/harness.go.in, a name the go tool does not compile in place). The tests import
// that generated package. Generate it before testing:
//
//	go generate . && go test -count=1 ./...   (or `make conformance` at the repository root)
//
// See README.md for the readiness models, the scenario generator and its flags.
package conformance

//go:generate bash hack/gen-upstream.sh deployment
