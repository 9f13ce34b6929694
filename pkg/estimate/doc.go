// Package estimate says how long a Deployment's pods take to become Ready, for the planner's
// timed model (planner.ReadinessTimed): from --pod-ready-after (a duration, or a range
// MIN..MAX spread deterministically over pods), or measured on the live Deployment's own
// pods (creation to the Ready condition's lastTransitionTime, over the pods of its current
// and previous ReplicaSets). And how long the controllers take to react to each write (the
// sync latency: the ReplicaSet controller creating pods, status updates, the Deployment
// controller's next sync): from --sync-latency, or fitted to the Deployment's last rollout
// (FitSyncLatency: the latency under which the model replays that rollout in the time it
// took).
//
// Pure: pods and ReplicaSets in, an Estimate out (the one LIST of pods is
// cluster.ListPods). minReadySeconds is not part of an estimate: the planner adds the
// Deployment's own after Ready.
//
// Not modelled: pods that restarted (their Ready transition is the last one, so they count
// longer), pods of a template that pulls a new image on nodes that never ran it (the
// samples are of the old template), and a cluster busier than when the samples were taken.
// The sync latency is one figure per write, fitted to one rollout whose duration has second
// precision; a Deployment scaled after its last rollout moves that rollout's end (the
// Progressing condition's lastUpdateTime) and so the figure.
package estimate
