// Package reloadoneshot is the I/O around pkg/reload's decisions for `kubectl rollplan reload`
// (one run, no watch): Assess reads what each selected Deployment's pods reference (one
// GET per ConfigMap or Secret, through cluster.Config: digests only, no Secret value kept),
// asks reload.Decide, reload.AssessFirstSight and reload.Choose, and plans each restart with
// the planner; Restart then writes (reload.RestartPatch or AdoptPatch through pkg/kube,
// under RunOptions.Write's field manager, by default rollplan-reload) paced: at most MaxConcurrent rollouts in flight,
// each watched (pkg/watch) until the controller reports it complete, as `kubectl rollout
// status` decides, before the next starts; or each walked by a drive.
//
// Config is the whole of one run as the command's flags give it (Flags: AddFlags, Validate,
// Config; pkg/cmd only fills it): Config.Run is the run in order, Assess -> Assessment
// (Refusal, Writes, DryRunResults), one question, then Config.Restart and Config.WriteKinds,
// shown and asked through a Report (pkg/printer's ReloadRun); Config.RunContexts for
// --contexts (read only: AssessContexts, a typed Contexts result).
//
// Decisions stay in pkg/reload; this package only reads, calls them, writes and waits.
package reloadoneshot
