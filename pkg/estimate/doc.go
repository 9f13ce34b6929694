// Package estimate says how long a Deployment's pods take to become Ready, for the planner's
// timed model (planner.ReadinessTimed): from --pod-ready-after (a duration, or a range
// MIN..MAX spread deterministically over pods), or measured on the live Deployment's own
// pods (creation to the Ready condition's lastTransitionTime, over the pods of its current
// and previous ReplicaSets).
//
// Pure: pods and ReplicaSets in, an Estimate out (the one LIST of pods is
// cluster.ListPods). minReadySeconds is not part of an estimate: the planner adds the
// Deployment's own after Ready.
//
// Not modelled: pods that restarted (their Ready transition is the last one, so they count
// longer), pods of a template that pulls a new image on nodes that never ran it (the
// samples are of the old template), and a cluster busier than when the samples were taken.
package estimate
