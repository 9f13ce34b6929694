// Package target turns a command's arguments and selection flags into the Deployments it acts
// on, as kubectl's rollout commands do (k8s.io/kubectl pkg/cmd/rollout, v0.36.3): one parser of
// resource arguments (ParseName, ParseArgs, ParseNames, and SplitPrefix for shell completion),
// the selection flags (Flags, Choices: -l/--selector, --all, -A/--all-namespaces,
// --chunk-size, -f/-R/-k) and a Selection that validates them with kubectl's errors and
// resolves them through cli-runtime's resource.Builder, one visit per object, failures
// collected with utilerrors.NewAggregate.
//
// What is covered: the forms rollplan accepts for apps/v1 Deployments ("NAME",
// "deploy/NAME", "deployment.apps/NAME", "deployments.v1.apps/NAME", "deployment NAME", type
// case-insensitive); with Choices.Many several of them ("a b", "deploy/a deploy/b",
// "deployment a b"), -l, --all and, for read-only commands, -A; offline resolution of names
// (no kubeconfig, no request) for --state-file; a REST mapping that knows apps/v1 Deployments
// alone, so resolving names asks the API server nothing (no discovery, no GET: the commands
// read the objects themselves); -l/--all/-A resolved either by one paginated LIST through the
// builder (Selection.List, RequestChunksOf(--chunk-size)) or by a reader of the caller's own
// (Selection.Scope: namespace, selector, page size; pkg/cluster's fleet read).
//
// What is not: -f/-k are only registered and validated here (Selection.Filenames); the
// command that takes them reads the manifests itself.
package target
