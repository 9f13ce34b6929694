// Package workload is the pure core of the rollout verbs other than preview, drive and reload
// for StatefulSets and DaemonSets (issue 21): history from ControllerRevisions, the patches of
// undo and restart as kubectl v0.36.3 builds them, kubectl's refusal of pause and resume, and
// kubectl's rollout status verdicts. State in, decision out: no client, no printing.
package workload
