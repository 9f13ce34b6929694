// Package pipeline is the floor between pkg/cmd and the engines: a command fills a typed
// config (Selection, Config, the Sources, a verb's run struct) and calls it, as kubectl's
// Options -> Run and stern's Run(ctx, client, cfg) do; pkg/cmd holds flags, help text and
// the call, and hands the typed results to pkg/printer. One pipeline, in order:
//
//	Source.Select(selection) -> []Member      read: one context live, or a state file
//	Config.Plan(member)      -> Result        change, timing, planner.Simulate, Checks
//	Run(sources...)          -> []SourceResult every Source at once (Parallel, 4)
//	Sink.Patch(...)                           the API, a server-side dry run, or print
//
// The files, by stage:
//   - resolve the arguments: targets.go (CompleteOne, CompleteMany, CompleteFleet: the
//     arguments and selection flags through the factory; FleetClient, FleetTune), onecluster.go
//     (WritingVerbs, OneCluster: a writing verb takes one context);
//   - select and read: source.go (Live, File), select_run.go (SelectionOf, SelectFrom: the
//     one way a selection becomes members), read_run.go (NamespaceCache), contexts.go,
//     contexts_flags.go and contexts_resolve.go (--contexts: the Kubeconfig, resolving and
//     completing the names), kindsource.go (StatefulSets and DaemonSets);
//   - change: change.go (DeploymentChange: the change flags; LoadState, DesiredDryRun),
//     kinds.go (KindChange), preview_words.go (Words: the change in a few words);
//   - plan and time: plan.go, preview_run.go (Preview: one Deployment, a selection, several
//     contexts), preview_kinds_run.go, timing.go, timing_validate.go, readiness.go;
//   - manifest sets (-f/-k): set.go, setconfig.go, preview_set.go, kindmanifest.go,
//     preview_set_kinds_run.go;
//   - checks: check.go (the registry: Register(Check{Name, Run}), pure Input -> findings),
//     feasibility.go and kindfeasibility.go (quota, capacity, PDB, HPA on every plan);
//   - write: sink.go (the one seam of a decided write), writes.go (Writes, RunWrites,
//     RunBatch: the writing verbs over a selection), undo_run.go (UndoRun, UndoCommand),
//     action_run.go (pause/resume/restart: ActionRun, ActionCommand), kinds_write_run.go,
//     write_run.go (LoadLive through transient failures; the checks of a write; the field
//     managers);
//   - read-only verbs: history_run.go, history_verb.go (HistoryConfig: the verb's flags, one
//     Deployment, a selection, several contexts), status.go, status_run.go, status_flags.go
//     (StatusFlags, StatusExit), kinds_status.go, kinds_follow.go, kinds_progress.go;
//   - StatefulSets and DaemonSets: kinds_verbs_run.go (KindsVerb: history, undo, restart,
//     pause, resume, status or preview of the kinds selected; KindsExit);
//   - completion: completion.go, completion_args.go (Completer: its cobra side is
//     pkg/completion's);
//   - exit: exit.go (the exit codes, Exit*, and FleetExit).
//
// The verbs whose runs print as they go live in their own packages over this one:
// pkg/previewrun (preview), pkg/driverun (drive, drive sts, abort, drive status, resume of a
// held Deployment) and pkg/reloadoneshot (reload without --watch).
//
// A new Source is a type with Source's methods in its own file; a new check is a Check
// function registered in its package's init; a new kind of write goes through Sink. The
// pipeline does not import pkg/printer (printer imports the pipeline's result types):
// output decisions that need both live in printer.
package pipeline
