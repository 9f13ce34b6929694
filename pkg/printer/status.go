package printer

import (
	"fmt"
	"io"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/stall"
	"github.com/rollplan/kubectl-rollplan/pkg/status"
)

// NewRolloutStatus converts a status.Status to its API object (kind RolloutStatus).
func NewRolloutStatus(s *status.Status) *v1alpha1.RolloutStatus {
	out := &v1alpha1.RolloutStatus{
		TypeMeta: metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "RolloutStatus"},
		Deployment: v1alpha1.StatusDeployment{Namespace: s.Namespace, Name: s.Name, Replicas: s.Replicas, Paused: s.Paused,
			Strategy: string(s.Strategy.Type), MaxSurgePods: s.Strategy.MaxSurge, MaxUnavailablePods: s.Strategy.MaxUnavailable},
		ObservedAt: metav1.NewTime(s.At), Phase: string(s.Phase), Message: s.Message, Step: s.Step, Steps: s.Steps,
		PlanError: s.PlanError, NewReplicaSet: s.NewReplicaSet, Revision: s.Revision,
		ReplicaSets: []v1alpha1.StatusReplicaSet{}, Waiting: s.Waiting, HeldBy: s.HeldBy,
		StartedAt: optTime(s.StartedAt), CompletedAt: optTime(s.CompletedAt),
		LastProgressAt: optTime(s.LastProgressAt), DeadlineAt: optTime(s.DeadlineAt), Warning: s.Warning,
	}
	if s.Plan != nil {
		out.Deployment.ProgressDeadlineSeconds = s.Plan.ProgressDeadlineSeconds
	}
	for _, rs := range s.ReplicaSets {
		out.ReplicaSets = append(out.ReplicaSets, v1alpha1.StatusReplicaSet(rs))
	}
	if w := s.Next; w != nil {
		out.Next = &v1alpha1.StatusWrite{ReplicaSet: w.ReplicaSet, From: w.From, To: w.To, Create: w.Create}
	}
	if !s.StartedAt.IsZero() {
		out.Elapsed = &metav1.Duration{Duration: s.Elapsed}
	}
	if s.HasETA {
		out.ETA = &metav1.Duration{Duration: s.ETA}
	}
	out.ETABasis = s.ETABasis
	for _, r := range s.Stall {
		out.Stalled = append(out.Stalled, v1alpha1.StatusStall{Reason: r.Reason, Pods: r.Pods, Message: r.Message,
			Restarts: r.Restarts, Since: optTime(r.Since), Object: r.Object})
	}
	out.FailedFast = s.FailedFast
	out.Feasibility = NewPlanFeasibility(s.Feasibility)
	return out
}

// NewRolloutStatusList wraps statuses in a RolloutStatusList, in order.
func NewRolloutStatusList(sts []*status.Status) *v1alpha1.RolloutStatusList {
	l := &v1alpha1.RolloutStatusList{TypeMeta: metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "RolloutStatusList"},
		Items: []v1alpha1.RolloutStatus{}}
	for _, s := range sts {
		l.Items = append(l.Items, *NewRolloutStatus(s))
	}
	return l
}

func optTime(t time.Time) *metav1.Time {
	if t.IsZero() {
		return nil
	}
	mt := metav1.NewTime(t)
	return &mt
}

// PrintRolloutStatus writes the human form of one Deployment's status: "Key: value" lines
// (the step, kubectl's verdict, what the controller waits for, elapsed, ETA, deadline,
// warning), then a table of every ReplicaSet ("*" marks the new one). Durations are rounded
// to seconds; times are UTC RFC 3339.
func PrintRolloutStatus(w io.Writer, r *v1alpha1.RolloutStatus) error {
	tw := newDriveTabWriter(w)
	p := func(k, format string, args ...any) { fmt.Fprintf(tw, "%s:\t%s\n", k, fmt.Sprintf(format, args...)) }
	d := r.Deployment
	p("Deployment", "%s/%s, %d replicas%s%s", d.Namespace, d.Name, d.Replicas, strategyWords(d), pausedNoteOf(d.Paused))
	p("Rollout", "%s", rolloutWords(r))
	p("Status", "%s", r.Message)
	if r.Waiting != "" {
		p("Waiting for", "%s", r.Waiting)
	}
	for i, st := range r.Stalled {
		if i == 0 {
			p("Not progressing", "%s", stallWords(st, r.ObservedAt.Time, true))
			continue
		}
		fmt.Fprintf(tw, "\t%s\n", stallWords(st, r.ObservedAt.Time, true))
	}
	if r.HeldBy != "" {
		p("Held", "%s", r.HeldBy)
	}
	if r.Elapsed != nil {
		p(elapsedKey(r), "%s (started %s)", round(r.Elapsed.Duration), utc(r.StartedAt))
	}
	switch {
	case r.ETA != nil:
		p("ETA", "%s more, at %s (time model: %s)", round(r.ETA.Duration), r.ObservedAt.Add(r.ETA.Duration).UTC().Format(time.RFC3339), r.ETABasis)
	case r.ETABasis != "":
		p("ETA", "%s", r.ETABasis)
	}
	if r.DeadlineAt != nil {
		p("Deadline", "ProgressDeadlineExceeded at %s without more progress (%s left; progressDeadlineSeconds %d, last progress %s)",
			utc(r.DeadlineAt), round(max(0, r.DeadlineAt.Sub(r.ObservedAt.Time))), deref(d.ProgressDeadlineSeconds), utc(r.LastProgressAt))
	}
	if r.Warning != "" {
		p("Warning", "%s", r.Warning)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = newDriveTabWriter(w)
	fmt.Fprintln(tw, "  REPLICASET\tREVISION\tREPLICAS\tCURRENT\tREADY\tAVAILABLE")
	for _, rs := range r.ReplicaSets {
		mark := " "
		if rs.New {
			mark = "*"
		}
		fmt.Fprintf(tw, "%s %s\t%d\t%d\t%d\t%d\t%d\n", mark, rs.Name, rs.Revision, rs.Replicas, rs.Current, rs.Ready, rs.Available)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return printFeasibility(w, r.Feasibility, willStall)
}

// StatusLine is the one-line form of a status (a line per Deployment with a selector, a
// line per change with --watch off a terminal):
//
//	shop/web  step 3/6  new 5/10 (2 available)  old 8  elapsed 12s  eta 9s  0 of 5 new pods available; ...
//
// then "WARNING: ..." when there is a warning.
func StatusLine(r *v1alpha1.RolloutStatus) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s/%s  %s  %s", r.Deployment.Namespace, r.Deployment.Name, stepWords(r), countWords(r))
	if r.Elapsed != nil {
		key := "elapsed"
		if r.CompletedAt != nil {
			key = "took"
		}
		fmt.Fprintf(&b, "  %s %s", key, round(r.Elapsed.Duration))
	}
	if r.ETA != nil {
		fmt.Fprintf(&b, "  eta %s", round(r.ETA.Duration))
	}
	switch {
	case r.Phase != string(status.PhaseProgressing):
		fmt.Fprintf(&b, "  %s", r.Message)
	case r.HeldBy != "":
		fmt.Fprintf(&b, "  %s", r.HeldBy)
	case r.Waiting != "":
		fmt.Fprintf(&b, "  waiting for %s", r.Waiting)
	}
	if len(r.Stalled) > 0 {
		var parts []string
		for _, st := range r.Stalled {
			parts = append(parts, stallWords(st, time.Time{}, false))
		}
		fmt.Fprintf(&b, "  NOT PROGRESSING: %s", strings.Join(parts, ", "))
	}
	if f := r.Feasibility; f != nil && f.Stall != nil {
		fmt.Fprintf(&b, "  WILL STALL: %s", f.Stall.Reason)
	}
	if r.Warning != "" && r.Phase == string(status.PhaseProgressing) {
		fmt.Fprintf(&b, "  WARNING: %s", r.Warning)
	}
	return b.String()
}

// stallWords is one reason: "2 pods ImagePullBackOff" (short), or with the message and
// how long, from at: "2 pods ImagePullBackOff for 31s: Back-off pulling image \"web:nope\"".
func stallWords(st v1alpha1.StatusStall, at time.Time, long bool) string {
	r := stall.Reason{Reason: st.Reason, Pods: st.Pods, Restarts: st.Restarts}
	if !long {
		return r.String()
	}
	out := r.String()
	if st.Since != nil && !at.IsZero() {
		out += fmt.Sprintf(" for %s", round(max(0, at.Sub(st.Since.Time))))
	}
	if st.Object != "" {
		out += fmt.Sprintf(" (%s)", st.Object)
	}
	if st.Message != "" {
		out += ": " + st.Message
	}
	return out
}

// StatusKey is what StatusLine shows except the clock-driven durations: a watch prints a
// new line when it changes.
func StatusKey(r *v1alpha1.RolloutStatus) string {
	c := *r
	c.Elapsed, c.ETA = nil, nil
	switch {
	case c.Warning == "":
	case c.DeadlineAt != nil && !c.DeadlineAt.After(c.ObservedAt.Time):
		c.Warning = "deadline passed"
	default:
		c.Warning = "deadline near"
	}
	return StatusLine(&c)
}

func stepWords(r *v1alpha1.RolloutStatus) string {
	if r.Steps == 0 {
		return "step -"
	}
	return fmt.Sprintf("step %d/%d", r.Step, r.Steps)
}

func countWords(r *v1alpha1.RolloutStatus) string {
	var newRS *v1alpha1.StatusReplicaSet
	var old int32
	for i := range r.ReplicaSets {
		if r.ReplicaSets[i].New {
			newRS = &r.ReplicaSets[i]
		} else {
			old += r.ReplicaSets[i].Replicas
		}
	}
	if newRS == nil {
		return fmt.Sprintf("new -  old %d", old)
	}
	return fmt.Sprintf("new %d/%d (%d available)  old %d", newRS.Replicas, r.Deployment.Replicas, newRS.Available, old)
}

func rolloutWords(r *v1alpha1.RolloutStatus) string {
	var parts []string
	if r.NewReplicaSet != "" {
		parts = append(parts, fmt.Sprintf("revision %d, new ReplicaSet %s", r.Revision, r.NewReplicaSet))
	} else {
		parts = append(parts, "new ReplicaSet not created yet")
	}
	switch {
	case r.Steps > 0:
		parts = append(parts, fmt.Sprintf("step %d of %d", r.Step, r.Steps))
	case r.PlanError != "":
		parts = append(parts, "no plan: "+r.PlanError)
	}
	if r.Next != nil {
		w := r.Next
		if w.Create {
			parts = append(parts, fmt.Sprintf("next write: create %s with %d", w.ReplicaSet, w.To))
		} else {
			parts = append(parts, fmt.Sprintf("next write: %s %d -> %d", w.ReplicaSet, w.From, w.To))
		}
	}
	return strings.Join(parts, "; ")
}

func strategyWords(d v1alpha1.StatusDeployment) string {
	switch d.Strategy {
	case "RollingUpdate":
		return fmt.Sprintf(", RollingUpdate: at most %d pods, at least %d available", d.Replicas+d.MaxSurgePods, max(0, d.Replicas-d.MaxUnavailablePods))
	case "":
		return ""
	}
	return ", " + d.Strategy
}

func pausedNoteOf(paused bool) string {
	if paused {
		return ", paused"
	}
	return ""
}

func elapsedKey(r *v1alpha1.RolloutStatus) string {
	if r.CompletedAt != nil {
		return "Took"
	}
	return "Elapsed"
}

func utc(t *metav1.Time) string {
	if t == nil {
		return "unknown"
	}
	return t.UTC().Format(time.RFC3339)
}

func deref(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}

func round(d time.Duration) time.Duration {
	if d < time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Second)
}

// Redraw rewrites a block of text in place on a terminal: each Draw moves the cursor up
// over the lines the previous Draw wrote and clears to the end of the screen (ANSI CSI
// "A" and "J") before writing the new block.
type Redraw struct {
	W     io.Writer
	lines int
}

// Draw replaces the previous block with text.
func (r *Redraw) Draw(text string) error {
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	prefix := ""
	if r.lines > 0 {
		prefix = fmt.Sprintf("\x1b[%dA\x1b[J", r.lines)
	}
	r.lines = strings.Count(text, "\n")
	_, err := io.WriteString(r.W, prefix+text)
	return err
}
