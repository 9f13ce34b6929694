// Package pipeline is the floor between pkg/cmd and the engines: a command fills a typed
// config (Selection, Config, the Sources) and calls it, as kubectl's Options -> Run and
// stern's Run(ctx, client, cfg) do. One pipeline, in order:
//
//	Source.Select(selection) -> []Member      read: one context live, or a state file
//	Config.Plan(member)      -> Result        change, timing, planner.Simulate, Checks
//	Run(sources...)          -> []SourceResult every Source at once (Parallel, 4)
//
// Where things go:
//   - a new Source (another kind of state: a directory of files, a recorded cluster) is a
//     type with Source's four methods, in its own file here (source.go holds Live and File);
//   - a new check (quota, capacity, PDB, HPA: pkg/feasibility) is a Check function, pure
//     (Input in, findings out), added with one line: Register(Check{Name: ..., Run: ...})
//     in its package's init, or in Checks' default list (check.go) for the core ones;
//   - a Sink (where a decided write goes: the API, a server dry run, a file) is not built yet:
//     the writing verbs still write through pkg/rollout and pkg/kube; it belongs here, beside
//     Config, as the one seam they call.
//
// What is not here yet: the manifest sets of -f/-k (pkg/cmd preview_set.go, pkg/manifest)
// and the writing verbs' selection (pkg/cmd many.go).
package pipeline
