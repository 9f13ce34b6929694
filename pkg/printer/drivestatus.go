package printer

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"k8s.io/cli-runtime/pkg/printers"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/drive"
)

// PrintDriveStatus writes the human form of `drive status`: "Key: value" lines on who holds
// the Deployment, the step, bounds and next step (held only), then a table of every
// ReplicaSet. now is the clock the lease's "left" and the "ago" durations are computed from
// (rounded to seconds).
func PrintDriveStatus(w io.Writer, r *v1alpha1.DriveStatus, now time.Time) error {
	tw := newDriveTabWriter(w)
	p := func(k, format string, args ...any) { fmt.Fprintf(tw, "%s:\t%s\n", k, fmt.Sprintf(format, args...)) }
	p("Deployment", "%s/%s", r.Namespace, r.Name)
	if s := r.State; s == nil {
		p("Held", "no: the Deployment controller runs its rollouts (strategy %s, paused %v)", r.Strategy, r.Paused)
	} else {
		printHeldStatus(p, r, s, now)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = newDriveTabWriter(w)
	fmt.Fprintln(tw, "REPLICASET\tROLE\tREVISION\tREPLICAS\tCURRENT\tREADY\tAVAILABLE\tIMAGES")
	for _, rs := range r.ReplicaSets {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%s\n", rs.Name, rs.Role, rs.Revision, rs.Replicas, rs.Current, rs.Ready, rs.Available, strings.Join(rs.Images, ","))
	}
	return tw.Flush()
}

// printHeldStatus writes the lines of a held Deployment through p (key, format, args).
func printHeldStatus(p func(k, format string, args ...any), r *v1alpha1.DriveStatus, s *v1alpha1.DriveState, now time.Time) {
	phase := "rolling out"
	if s.Phase == string(drive.PhaseAbort) {
		phase = "walking back (abort)"
	}
	adopted := ""
	if s.Adopted {
		adopted = ", adopted"
	}
	p("Held", "yes, by kubectl rollplan drive, %s (plan %s%s)", phase, s.PlanID, adopted)
	switch {
	case r.Driving:
		p("Driver", "%s (lease valid until %s, %s left)", s.Holder, s.LeaseExpires.Format(time.RFC3339), s.LeaseExpires.Sub(now).Round(time.Second))
	case s.Holder != "":
		p("Driver", "none running: %s's lease expired at %s (%s ago); `drive --force` takes over", s.Holder, s.LeaseExpires.Format(time.RFC3339), now.Sub(s.LeaseExpires.Time).Round(time.Second))
	default:
		p("Driver", "none running (last: %s)", s.LastHolder)
	}
	p("Since", "%s (%s ago)", s.StartedAt.Format(time.RFC3339), now.Sub(s.StartedAt.Time).Round(time.Second))
	if s.HeldSince != nil {
		p("Held since", "%s: %s", s.HeldSince.Format(time.RFC3339), s.HeldReason)
	}
	p("Step", "%d of %d (%d left from the current state)", s.Step, s.Step+r.StepsLeft, r.StepsLeft)
	previous := s.PreviousReplicaSet
	if previous == "" {
		previous = "none"
	}
	p("Target", "ReplicaSet %s, revision %d (previous: %s)", s.NewReplicaSet, s.Revision, previous)
	original := drive.DescribeStrategy(s.OriginalStrategy)
	if r.Bounds != nil {
		b := drive.Bounds{Replicas: r.Bounds.Replicas, MaxSurge: r.Bounds.MaxSurge, MaxUnavailable: r.Bounds.MaxUnavailable}
		p("Bounds", "%d replicas: at most %d pods, at least %d available (original strategy %s)", b.Replicas, b.MaxPods(), b.MinAvailable(), original)
	}
	p("Spec now", "strategy %s, paused %v; on hand-back: strategy %s, paused %v", r.Strategy, r.Paused, original, s.OriginalPaused)
	if len(r.Edits) > 0 {
		p("Edited", "%s", strings.Join(r.Edits, "; "))
	}
	if r.Problem != "" {
		p("Problem", "%s", r.Problem)
	}
	if r.Next != nil {
		p("Next step", "%s", DescribeStep(*r.Next))
	} else {
		p("Next step", "none: the rollout is complete; the next drive hands it back")
	}
}

// PrintDriveStatusLines writes the `drive status` of many Deployments, one line each: CONTEXT
// first when any status carries one (--contexts),
// NAMESPACE, DEPLOYMENT, HELD (no, or yes with the phase), DRIVER (the driver holding a valid
// lease, "none" when held without one), STEP ("i of n", held only), NEW REPLICASET (the
// drive's target, held only) and PROBLEM.
func PrintDriveStatusLines(w io.Writer, rs []*v1alpha1.DriveStatus) error {
	tw := printers.GetNewTabWriter(w)
	withContext := slices.ContainsFunc(rs, func(r *v1alpha1.DriveStatus) bool { return r.Context != "" })
	if withContext {
		fmt.Fprint(tw, "CONTEXT\t")
	}
	fmt.Fprintln(tw, "NAMESPACE\tDEPLOYMENT\tHELD\tDRIVER\tSTEP\tNEW REPLICASET\tPROBLEM")
	for _, r := range rs {
		if withContext {
			fmt.Fprintf(tw, "%s\t", r.Context)
		}
		held, driver, step, target := "no", "-", "-", "-"
		if s := r.State; s != nil {
			held = "yes, rolling out"
			if s.Phase == string(drive.PhaseAbort) {
				held = "yes, walking back"
			}
			driver = "none"
			if r.Driving {
				driver = s.Holder
			}
			step = fmt.Sprintf("%d of %d", s.Step, s.Step+r.StepsLeft)
			target = s.NewReplicaSet
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Namespace, r.Name, held, driver, step, target, orDash(r.Problem))
	}
	return tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return oneLine(s)
}
