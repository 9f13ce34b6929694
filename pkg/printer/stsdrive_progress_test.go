package printer

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rollplan/kubectl-rollplan/pkg/drive/stsdrive"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// TestStsProgress: every progress event of a StatefulSet's walk renders as the line
// stsdrive printed itself before it emitted events, one line each.
func TestStsProgress(t *testing.T) {
	ref := target.KindRef{Kind: target.KindStatefulSet, Namespace: "shop", Name: "db"}
	var b strings.Builder
	p := StsProgress(&b)
	for _, e := range []stsdrive.Event{
		{Kind: stsdrive.EventTookLease, Holder: "alice@h pid 1/ab"},
		{Kind: stsdrive.EventRenewRetry, Err: errors.New("connection refused")},
		{Kind: stsdrive.EventTransientRetry, Err: errors.New("the server is restarting")},
		{Kind: stsdrive.EventChangeApplied, Partition: 5},
		{Kind: stsdrive.EventPartition, Partition: 5, To: 3},
		{Kind: stsdrive.EventBaking, Partition: 3, Replicas: 5, Interval: 2 * time.Minute},
		{Kind: stsdrive.EventDone, Replicas: 5, Revision: "db-7f"},
	} {
		e.Ref = ref
		p(e)
	}
	want := `statefulset shop/db: took the lease from alice@h pid 1/ab (--force)
warning: statefulset shop/db: renew the drive lease: connection refused (retrying)
warning: statefulset shop/db: the server is restarting (retrying until the lease expires)
statefulset shop/db: change applied, partition 5 (no pod replaced yet)
statefulset shop/db: partition 5 -> 3 (replacing ordinals 3-4)
statefulset shop/db: pods 3-4 available, baking 2m0s
statefulset shop/db: done, 5 pods on revision db-7f
`
	if b.String() != want {
		t.Errorf("progress:\n%s\nwant:\n%s", b.String(), want)
	}
}
