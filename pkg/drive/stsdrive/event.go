package stsdrive

import (
	"time"

	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// EventKind is the kind of a progress Event of a StatefulSet's walk (Options.Progress),
// as pkg/drive's drive.EventKind for a Deployment; pkg/printer renders them
// (printer.StsEventText).
type EventKind int

// The kinds of progress events, with the fields of Event each one sets (Ref always).
const (
	// EventTookLease: Holder, the driver whose lease --force took.
	EventTookLease EventKind = iota
	// EventRenewRetry: Err, renewing the lease failed; the walk retries.
	EventRenewRetry
	// EventTransientRetry: Err, a transient API error; the walk reads again until the lease
	// expires.
	EventTransientRetry
	// EventChangeApplied: Partition (= replicas), the change written, no pod replaced yet.
	EventChangeApplied
	// EventDone: Replicas, Revision (the update revision every pod runs).
	EventDone
	// EventBaking: Partition (the lowest ordinal available on the update), Replicas,
	// Interval (the bake time before the next step).
	EventBaking
	// EventPartition: Partition (from), To (the partition written): ordinals To to
	// Partition-1 are replaced.
	EventPartition
)

// Event is one progress event of a StatefulSet's walk.
type Event struct {
	Kind EventKind
	// Ref names the StatefulSet.
	Ref target.KindRef
	// Holder is the previous lease holder (EventTookLease).
	Holder string
	// Err is the error retried.
	Err error
	// Partition, To and Replicas: partitions and spec.replicas.
	Partition, To, Replicas int32
	// Revision is a controller revision name.
	Revision string
	// Interval is the bake time.
	Interval time.Duration
}

// emit sends e, its Ref set, to o.Progress (nil: dropped).
func (o *Options) emit(e Event) {
	if o.Progress == nil {
		return
	}
	e.Ref = o.Ref
	o.Progress(e)
}
