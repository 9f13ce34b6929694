package printer

import (
	"fmt"
	"io"
	"sync"

	"github.com/rollplan/kubectl-rollplan/pkg/drive/stsdrive"
)

// StsEventText is the line of a StatefulSet walk's progress event (stsdrive.Event), without
// its newline:
//
//	statefulset shop/db: partition 3 -> 2 (replacing ordinals 2-2)
//	warning: statefulset shop/db: renew the drive lease: ... (retrying)
func StsEventText(e stsdrive.Event) string {
	ref := fmt.Sprintf("statefulset %s/%s", e.Ref.Namespace, e.Ref.Name)
	switch e.Kind {
	case stsdrive.EventTookLease:
		return fmt.Sprintf("%s: took the lease from %s (--force)", ref, e.Holder)
	case stsdrive.EventRenewRetry:
		return fmt.Sprintf("warning: %s: renew the drive lease: %v (retrying)", ref, e.Err)
	case stsdrive.EventTransientRetry:
		return fmt.Sprintf("warning: %s: %v (retrying until the lease expires)", ref, e.Err)
	case stsdrive.EventChangeApplied:
		return fmt.Sprintf("%s: change applied, partition %d (no pod replaced yet)", ref, e.Partition)
	case stsdrive.EventDone:
		return fmt.Sprintf("%s: done, %d pods on revision %s", ref, e.Replicas, e.Revision)
	case stsdrive.EventBaking:
		return fmt.Sprintf("%s: pods %d-%d available, baking %s", ref, e.Partition, e.Replicas-1, e.Interval)
	case stsdrive.EventPartition:
		return fmt.Sprintf("%s: partition %d -> %d (replacing ordinals %d-%d)", ref, e.Partition, e.To, e.To, e.Partition-1)
	}
	return fmt.Sprintf("%s: event %d", ref, e.Kind)
}

// StsProgress returns the func to set as stsdrive.Options.Progress: one line per event
// on w (StsEventText), safe for concurrent use.
func StsProgress(w io.Writer) func(stsdrive.Event) {
	var mu sync.Mutex
	return func(e stsdrive.Event) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintln(w, StsEventText(e))
	}
}
