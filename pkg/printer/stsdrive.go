package printer

import (
	"fmt"
	"io"

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
