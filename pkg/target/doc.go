// Package target turns a command's arguments and selection flags into the objects it acts on,
// as kubectl's rollout commands do (k8s.io/kubectl pkg/cmd/rollout, v0.36.3): one parser of
// resource arguments (ParseName, ParseArgs, and SplitPrefix for shell completion) and a
// Selection that resolves them through cli-runtime's resource.Builder, one visit per object,
// failures collected with utilerrors.NewAggregate.
//
// What is covered: the forms rollplan accepts for one apps/v1 Deployment ("NAME",
// "deploy/NAME", "deployment.apps/NAME", "deployments.v1.apps/NAME", "deployment NAME", type
// case-insensitive), offline resolution (no kubeconfig, no request) for --state-file, and a
// REST mapping that knows apps/v1 Deployments alone, so resolving a name asks the API server
// nothing (no discovery, no GET: the commands read the Deployment themselves).
//
// What is not (yet): -l/--selector, --all, -A and -f/-k. Selection.Resolve already returns a
// list of Refs so that they can be added as builder parameters without changing its callers.
package target
