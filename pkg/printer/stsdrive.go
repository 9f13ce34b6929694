package printer

import (
	"fmt"
	"io"
	"time"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/drive/partition"
	"github.com/rollplan/kubectl-rollplan/pkg/drive/stsdrive"
)

// PrintStsHeld prints the closing block of a StatefulSet drive that stopped at a partition
// (exit code 4): where it stays and why, then how to continue or abort, as Deployment
// drive's PrintHeldExit does.
func PrintStsHeld(w io.Writer, e *stsdrive.HeldError) error {
	verb := "held"
	if e.Action == partition.ActionPause {
		verb = "paused"
	}
	ref := fmt.Sprintf("sts/%s -n %s", e.Ref.Name, e.Ref.Namespace)
	fmt.Fprintf(w, "statefulset %s/%s %s at partition %d of %d replicas (ordinals %d and up updated): %s\n",
		e.Ref.Namespace, e.Ref.Name, verb, e.Partition, e.Replicas, e.Partition, e.Reason)
	tw := newDriveTabWriter(w)
	fmt.Fprintf(tw, "  continue:\tkubectl rollplan drive %s\n", ref)
	fmt.Fprintf(tw, "  walk back:\tkubectl rollplan drive abort %s\n", ref)
	fmt.Fprintf(tw, "  see it:\tkubectl rollplan status %s\n", ref)
	return tw.Flush()
}

// PrintStsAborted prints what drive abort sts/NAME did.
func PrintStsAborted(w io.Writer, namespace, name string, r *stsdrive.AbortResult) error {
	_, err := fmt.Fprintf(w, "statefulset %s/%s: template of revision %s restored, partition 0: the controller rolls the pods back\n", namespace, name, r.Restored)
	for _, p := range r.Deleted {
		if err == nil {
			_, err = fmt.Fprintf(w, "  deleted pod %s (not Ready, of the abandoned revision; the controller would wait for it forever)\n", p)
		}
	}
	return err
}

// PrintStsDrivePlan prints the walk of drive sts/NAME (its --dry-run): one line per
// partition write, then, for a dry run, that nothing changed (and, for a server dry run,
// that the API server accepts the first write).
func PrintStsDrivePlan(w io.Writer, p *v1alpha1.StatefulSetDrive) error {
	what := "continues the walk"
	if len(p.Images) > 0 || p.Restart {
		what = "applies the change with the partition at " + fmt.Sprint(p.Replicas)
	}
	fmt.Fprintf(w, "statefulset %s/%s: %d replicas; drive %s, then lowers it from %d:\n", p.Namespace, p.Name, p.Replicas, what, p.StartPartition)
	if len(p.Steps) == 0 {
		fmt.Fprintln(w, "  no partition step: the partition is 0 (drive waits for every pod to run the update revision)")
	}
	for _, s := range p.Steps {
		pause := ""
		if s.PauseAfter {
			pause = ", then pauses (--pause-after)"
		}
		fmt.Fprintf(w, "  step %d: partition %d -> %d (replacing ordinals %d-%d)%s\n", s.Number, s.From, s.To, s.To, s.From-1, pause)
	}
	if p.DryRun == "" {
		return nil
	}
	if p.DryRun == "server" && (len(p.Images) > 0 || p.Restart) {
		fmt.Fprintln(w, "server dry run: the API server accepts the first write")
	}
	_, err := fmt.Fprintln(w, "(dry run: nothing changed)")
	return err
}

// PrintStsDriveStatus prints `drive status sts/NAME` (r from stsdrive.Status) at now: the
// driver and its lease, the partition walk, the revisions.
func PrintStsDriveStatus(w io.Writer, r *v1alpha1.DriveStatus, now time.Time) error {
	s := r.StatefulSet
	tw := newDriveTabWriter(w)
	p := func(k, format string, args ...any) { fmt.Fprintf(tw, "%s:\t%s\n", k, fmt.Sprintf(format, args...)) }
	p("StatefulSet", "%s/%s", r.Namespace, r.Name)
	switch {
	case r.Driving:
		p("Driver", "%s (lease valid until %s, %s left)", s.Holder, s.LeaseExpires.Format(time.RFC3339), s.LeaseExpires.Sub(now).Round(time.Second))
	case s.Holder != "":
		p("Driver", "none running: %s's lease expired at %s (%s ago); drive sts/%s continues without --force", s.Holder, s.LeaseExpires.Format(time.RFC3339), now.Sub(s.LeaseExpires.Time).Round(time.Second), r.Name)
	default:
		p("Driver", "none running (no lease)")
	}
	walk := "not midway (partition 0, or every pod on one revision)"
	if r.Held {
		walk = fmt.Sprintf("midway: ordinals %d-%d may run the update revision; drive sts/%s continues, drive abort sts/%s walks back", s.Partition, s.Replicas-1, r.Name, r.Name)
	}
	p("Partition", "%d of %d replicas, %s", s.Partition, s.Replicas, walk)
	p("Pods", "%d updated, %d ready", s.UpdatedReplicas, s.ReadyReplicas)
	p("Revisions", "current %s, update %s", s.CurrentRevision, s.UpdateRevision)
	p("Strategy", "%s", s.Strategy)
	if r.Problem != "" {
		p("Problem", "%s", r.Problem)
	}
	return tw.Flush()
}
