package status

import (
	"context"
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/stall"
)

// DiagnoseEvery is how often Follow reads again why a rollout does not progress (the
// events and nodes stall.Read asks for) while it watches: between two reads the last
// reasons stand.
const DiagnoseEvery = 2 * time.Second

// needsDiagnosis reports whether s's rollout is held back by its new ReplicaSet rs at now:
// the rollout is neither complete nor paused (unless drive holds it), made no progress
// (the Progressing condition's lastUpdateTime) for DiagnoseEvery, and rs lacks available
// pods or reports a ReplicaFailure. A rollout moving along costs no read.
func needsDiagnosis(s *Status, rs *appsv1.ReplicaSet, now time.Time) bool {
	if rs == nil || s.Phase == PhaseComplete || (s.Paused && s.HeldBy == "") || now.Sub(s.LastProgressAt) < DiagnoseEvery {
		return false
	}
	for _, c := range rs.Status.Conditions {
		if c.Type == appsv1.ReplicaSetReplicaFailure && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return rs.Status.AvailableReplicas < ptr.Deref(rs.Spec.Replicas, 1)
}

// diagnoser reads why rollouts do not progress (stall.Read, stall.Diagnose), at most once
// per every for each Deployment; between reads it gives the last reasons.
type diagnoser struct {
	ctx    context.Context
	client kubernetes.Interface
	every  time.Duration
	last   map[string]diagnosis // by namespace/name
}

type diagnosis struct {
	at      time.Time
	rs      string
	reasons []stall.Reason
}

// why sets s.Stall for the new ReplicaSet rs of s's rollout at now (and drops its ETA when
// there is a reason); pods are the watch cache's (nil: none cached, stall.Read lists them).
// A failed read leaves s.Stall empty.
func (g *diagnoser) why(s *Status, rs *appsv1.ReplicaSet, pods []*corev1.Pod, now time.Time) {
	key := s.Namespace + "/" + s.Name
	if !needsDiagnosis(s, rs, now) {
		delete(g.last, key)
		return
	}
	if l, ok := g.last[key]; ok && l.rs == rs.Name && now.Sub(l.at) < g.every {
		s.Stall = l.reasons
		s.noETA()
		return
	}
	in, err := stall.Read(g.ctx, g.client, rs, pods)
	if err != nil {
		return
	}
	s.Stall = stall.Diagnose(in, now)
	g.last[key] = diagnosis{at: now, rs: rs.Name, reasons: s.Stall}
	s.noETA()
}

// noETA drops the ETA of a rollout that does not progress (s.Stall): the time model counts
// on every pod becoming Ready, which these will not do by themselves.
func (s *Status) noETA() {
	if len(s.Stall) == 0 {
		return
	}
	s.ETA, s.HasETA = 0, false
	s.ETABasis = "none: the rollout does not progress (" + StallWords(s.Stall) + ")"
}

// failFast sets s.FailedFast when a reason of s.Stall has lasted after at now.
func (s *Status) failFast(now time.Time, after time.Duration) {
	s.FailedFast = len(stall.Stuck(s.Stall, now, after)) > 0
}

// StallWords is the reasons rs on one line, without messages: "2 pods ImagePullBackOff,
// 1 pod Unschedulable" ("" without reasons).
func StallWords(rs []stall.Reason) string {
	var parts []string
	for _, r := range rs {
		head := r
		head.Message = ""
		parts = append(parts, head.String())
	}
	return strings.Join(parts, ", ")
}

// FailFastMessage is --fail-fast's error for s, naming the reasons that lasted after:
// `deployment "web" does not progress (new ReplicaSet web-5d4f): 2 pods ImagePullBackOff:
// Back-off pulling image "web:nope" (for 31s)`, several joined by "; ".
func FailFastMessage(s *Status, after time.Duration) string {
	var parts []string
	for _, r := range stall.Stuck(s.Stall, s.At, after) {
		parts = append(parts, fmt.Sprintf("%s (for %s)", r, s.At.Sub(r.Since).Round(time.Second)))
	}
	return fmt.Sprintf("deployment %q does not progress (new ReplicaSet %s): %s", s.Name, s.NewReplicaSet, strings.Join(parts, "; "))
}
