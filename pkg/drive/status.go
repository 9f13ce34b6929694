package drive

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	appsv1 "k8s.io/api/apps/v1"
)

// StatusReport is what `kubectl rollplan drive status` shows.
type StatusReport struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Held: the Deployment carries the drive annotation.
	Held bool `json:"held"`
	// State is the drive state (nil when not held).
	State *State `json:"state,omitempty"`
	// Driving: a driver holds a valid lease now.
	Driving bool `json:"driving"`
	// Paused and Strategy are the live spec values.
	Paused   bool   `json:"paused"`
	Strategy string `json:"strategy"`
	// Edits lists spec edits made while held (fields drive holds).
	Edits []string `json:"edits,omitempty"`
	// ReplicaSets are every ReplicaSet with its counts, oldest first.
	ReplicaSets []ReplicaSetStatus `json:"replicaSets"`
	// Bounds and Next: the bounds and the next step of the plan from the current state (held
	// only; Next nil when the drive only needs the hand-back).
	Bounds    *Bounds `json:"bounds,omitempty"`
	Next      *Step   `json:"next,omitempty"`
	StepsLeft int     `json:"stepsLeft"`
	// Problem is set when the plan cannot be made (for example a bad annotation).
	Problem string `json:"problem,omitempty"`
}

// ReplicaSetStatus is one ReplicaSet's line of the status.
type ReplicaSetStatus struct {
	Name      string   `json:"name"`
	Role      string   `json:"role"` // new, previous, old
	Revision  int64    `json:"revision"`
	Replicas  int32    `json:"replicas"`
	Current   int32    `json:"current"`
	Ready     int32    `json:"ready"`
	Available int32    `json:"available"`
	Images    []string `json:"images"`
}

// Status builds the status report of snap at now.
func Status(snap *Snapshot, now time.Time) *StatusReport {
	d := snap.Deployment
	r := &StatusReport{Namespace: d.Namespace, Name: d.Name, Held: snap.State != nil, State: snap.State,
		Paused: d.Spec.Paused, Strategy: describeStrategy(d.Spec.Strategy)}
	s := snap.State
	if s != nil {
		r.Driving = s.LeaseValid(now)
		r.Edits = specEdits(d, snap, s)
	}
	newName := ""
	if rs := findNewReplicaSet(d, snap.ReplicaSets); rs != nil {
		newName = rs.Name
	}
	for _, rs := range snap.ReplicaSets {
		role := "old"
		switch {
		case s != nil && rs.Name == s.NewReplicaSet, s == nil && rs.Name == newName:
			role = "new"
		case s != nil && rs.Name == s.PreviousReplicaSet:
			role = "previous"
		}
		var images []string
		for _, c := range rs.Spec.Template.Spec.Containers {
			images = append(images, c.Image)
		}
		r.ReplicaSets = append(r.ReplicaSets, ReplicaSetStatus{Name: rs.Name, Role: role, Revision: revisionOf(rs),
			Replicas: replicas(rs), Current: rs.Status.Replicas, Ready: rs.Status.ReadyReplicas, Available: rs.Status.AvailableReplicas, Images: images})
	}
	if s == nil {
		return r
	}
	b := s.Bounds()
	if rep := ptrDeref(d.Spec.Replicas, 1); rep != s.Replicas && !s.PendingReplicas {
		if nb, err := ResolveBounds(rep, s.OriginalStrategy); err == nil {
			b = nb
		}
	}
	r.Bounds = &b
	steps, err := PlanSteps(b, snap.Start())
	if err != nil {
		r.Problem = err.Error()
		return r
	}
	r.StepsLeft = len(steps)
	if len(steps) > 0 {
		r.Next = &steps[0]
	}
	return r
}

// PrintStatus writes the human status report.
func PrintStatus(w io.Writer, r *StatusReport, now time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	p := func(k, format string, args ...any) { fmt.Fprintf(tw, "%s:\t%s\n", k, fmt.Sprintf(format, args...)) }
	p("Deployment", "%s/%s", r.Namespace, r.Name)
	s := r.State
	if s == nil {
		p("Held", "no: the Deployment controller runs its rollouts (strategy %s, paused %v)", r.Strategy, r.Paused)
	} else {
		phase := "rolling out"
		if s.Phase == PhaseAbort {
			phase = "walking back (abort)"
		}
		p("Held", "yes, by kubectl rollplan drive, %s (plan %s%s)", phase, s.PlanID, adoptedNote(s))
		switch {
		case r.Driving:
			p("Driver", "%s (lease valid until %s, %s left)", s.Holder, s.LeaseExpires.Format(time.RFC3339), s.LeaseExpires.Sub(now).Round(time.Second))
		case s.Holder != "":
			p("Driver", "none running: %s's lease expired at %s (%s ago); `drive --force` takes over", s.Holder, s.LeaseExpires.Format(time.RFC3339), now.Sub(*s.LeaseExpires).Round(time.Second))
		default:
			p("Driver", "none running (last: %s)", s.LastHolder)
		}
		p("Since", "%s (%s ago)", s.StartedAt.Format(time.RFC3339), now.Sub(s.StartedAt).Round(time.Second))
		if s.HeldSince != nil {
			p("Held since", "%s: %s", s.HeldSince.Format(time.RFC3339), s.HeldReason)
		}
		p("Step", "%d of %d (%d left from the current state)", s.Step, s.Step+r.StepsLeft, r.StepsLeft)
		p("Target", "ReplicaSet %s, revision %d (previous: %s)", s.NewReplicaSet, s.Revision, orNone(s.PreviousReplicaSet))
		if r.Bounds != nil {
			p("Bounds", "%d replicas: at most %d pods, at least %d available (original strategy %s)", r.Bounds.Replicas, r.Bounds.MaxPods(), r.Bounds.MinAvailable(), describeStrategy(s.OriginalStrategy))
		}
		p("Spec now", "strategy %s, paused %v; on hand-back: strategy %s, paused %v", r.Strategy, r.Paused, describeStrategy(s.OriginalStrategy), s.OriginalPaused)
		if len(r.Edits) > 0 {
			p("Edited", "%s", strings.Join(r.Edits, "; "))
		}
		if r.Problem != "" {
			p("Problem", "%s", r.Problem)
		}
		switch {
		case r.Next != nil:
			p("Next step", "%s", DescribeStep(*r.Next))
		default:
			p("Next step", "none: the rollout is complete; the next drive hands it back")
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "REPLICASET\tROLE\tREVISION\tREPLICAS\tCURRENT\tREADY\tAVAILABLE\tIMAGES")
	for _, rs := range r.ReplicaSets {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%s\n", rs.Name, rs.Role, rs.Revision, rs.Replicas, rs.Current, rs.Ready, rs.Available, strings.Join(rs.Images, ","))
	}
	return tw.Flush()
}

func adoptedNote(s *State) string {
	if s.Adopted {
		return ", adopted"
	}
	return ""
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// DescribeStep says in one line what a step does, for example
// "web-7d9f 3 -> 8, wait for 8 available, web-5c8b 5 -> 1 (13 pods at most, 9 available after)".
func DescribeStep(st Step) string {
	var parts []string
	switch {
	case st.Create:
		parts = append(parts, fmt.Sprintf("create %s with %d", st.New.Name, st.New.To))
	case st.New.From != st.New.To:
		parts = append(parts, fmt.Sprintf("%s %d -> %d", st.New.Name, st.New.From, st.New.To))
	}
	parts = append(parts, fmt.Sprintf("wait for %d available", st.WaitAvailable))
	for _, o := range st.Old {
		parts = append(parts, fmt.Sprintf("%s %d -> %d", o.Name, o.From, o.To))
	}
	extra := ""
	if st.ExtraPod {
		extra = ", one extra pod: maxSurge is 0"
	}
	return fmt.Sprintf("%s (%d pods at most, %d available after%s)", strings.Join(parts, ", "), st.Pods, st.AvailableAfter, extra)
}

// Held is a short description of who holds d, for other commands' messages ("" if not held).
func Held(d *appsv1.Deployment, now time.Time) string {
	s, err := ReadState(d)
	if err != nil || s == nil {
		return ""
	}
	if s.LeaseValid(now) {
		return fmt.Sprintf("held by kubectl rollplan drive, driven now by %s (step %d of %d)", s.Holder, s.Step, s.Steps)
	}
	return fmt.Sprintf("held by kubectl rollplan drive at step %d of %d (no driver running)", s.Step, s.Steps)
}
