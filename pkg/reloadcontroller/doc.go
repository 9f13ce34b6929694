// Package reloadcontroller is the watch mode of config-change restarts (`kubectl rollplan reload
// --watch`, issue 9): a client-side controller, the I/O around the pure decision core
// pkg/reload, built as the Deployment controller is built (client-go shared informers, a
// rate-limited workqueue keyed by Deployment with handleErr's retries, pkg/watch.Queue,
// events through pkg/kube's recorder).
//
//   - Informers of Deployments (-l selects them; managedFields dropped; indexed by the
//     ConfigMaps and Secrets their pods see, reload.References), ConfigMaps and Secrets in one
//     namespace or all. ConfigMaps and Secrets go through DigestTransform before they are
//     cached: one digest per key (reload.Object), no value, no annotations, so the cache does
//     not grow with config size and holds no Secret value.
//
//   - A change to a ConfigMap or Secret queues every opted-in (reload.OptedIn) Deployment
//     that references it, GracePeriod later (watch.Queue.AddAfter: a burst within the grace
//     period gives one sync, as XING's restart grace period does); a Deployment that is new or
//     whose spec or annotations changed is queued at once, a status-only update not at all;
//     the initial sync queues every opted-in Deployment at once.
//
//   - A worker decides with reload.Decide from the cache, restarts a stale Deployment with
//     reload.RestartPatch (one guarded JSON patch of the pod template's
//     rollplan.dev/config-checksums annotation, through pkg/kube as rollplan-reload),
//     records a ConfigReloaded Event naming what changed, and waits for the rollout to
//     complete (`kubectl rollout status`'s rule) before taking the next key: MaxConcurrent
//     workers, so at most that many restarts roll out at once. A refusal (a non-optional
//     reference missing) writes nothing and records a Warning Event once.
//
//   - State lives in the annotations: a controller started after changes restarts exactly
//     the stale Deployments. A Deployment seen for the first time (a reference with no
//     recorded checksum, nothing stale) is judged as the one-shot command judges it
//     (reload.AssessFirstSight): one LIST of its pods, at first sight only, dates the oldest
//     pod of its current ReplicaSet against each config's last data write (managedFields,
//     kept by DigestTransform); written after, it is restarted with that evidence in the
//     Event; otherwise it is adopted: its checksums are recorded in the Deployment
//     annotation rollplan.dev/adopted-config-checksums (reload.AdoptPatch) without a
//     restart, as XING's controller records its annotation, so the next change is one even
//     if the watcher was down in between (XING's caveat 2 does not apply).
//
//   - Leader election (LeaderElection, a coordination.k8s.io Lease, client-go
//     tools/leaderelection) runs the workers in one replica only; Prometheus metrics
//     (Metrics: XING's set under rollplan_reload_, plus the change-to-restart histogram),
//     /healthz and /readyz (Serve).
//
//   - Reconnects: the informers relist and rewatch after an API server restart (client-go's
//     reflector); a failed restart is requeued with backoff (watch.Queue.HandleErr), and the
//     Deployments' informer resyncs every 10 minutes, so a key dropped after MaxRetries is
//     tried again.
//
//   - StatefulSets and DaemonSets (kinds.go, kindsync.go): their informers (same selector,
//     indexed by reference) feed the same queue under keys "StatefulSet:ns/name"; a worker
//     decides with reload.DecideWorkload, adopts at first sight (no pod-age evidence),
//     restarts with reload.WorkloadRestartPatch and waits on kubectl's status viewer
//     (workload.Status); the same Events, lines (Outcome.Resource) and metrics (label kind).
//     Run probes a LIST of each first: forbidden, it says so once (Config.Warn) and goes on
//     with Deployments.
//
//   - RunWatch is the whole of `reload --watch` (flags in WatchConfig): pkg/cmd only fills it.
//     WatchFlags registers and validates the watch-only flags (AddFlags, Validate) and
//     turns them into a WatchConfig (Config).
package reloadcontroller
