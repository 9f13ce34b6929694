// Package manifest plans a manifest set: what `kubectl apply -f FILE|DIR|- [-R]` or `-k DIR`
// would send (issue 8, `preview -f/-k`).
//
// Read turns the files into a Set through cli-runtime's resource.Builder in local mode, as
// kubectl apply and diff read them (FilenameParam, Flatten, the builder's kustomize): the
// apps/v1 Deployments, every other object (counted by kind; the ConfigMaps and Secrets are
// what pkg/reload looks at), and one error per file that could not be read. Classify and
// Decide are the pure core: what applying does to one Deployment (Create, Update, NoChange)
// and its plan (pkg/planner). PlanSet is the thin I/O around them, through functions it is
// given: one read of each namespace (cluster.LoadFleet, or a state file), the manifest
// merged into the live Deployment (change.FromObject, kubectl apply's three-way merge), the
// server-side dry runs sent concurrently with a bound (errgroup.SetLimit), a failure kept on
// its Deployment.
//
// What is not modelled: the order kubectl apply would write the objects in and the effect of
// the other objects (a Namespace the set creates, a ConfigMap a Deployment mounts) on the dry
// runs: each Deployment is dry-run against the cluster as it is. Server-side apply
// (--server-side) merges by field ownership; the client-side merge is used here (the same
// for fields one manager owns).
package manifest
