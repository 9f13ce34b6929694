// Package stsdrive is the thin I/O around package partition: `kubectl rollplan drive
// sts/NAME` and `drive abort sts/NAME`. Start applies the change with the partition at
// replicas in one guarded write; the walk reads the StatefulSet and its pods, asks
// partition.Next and writes its PartitionOps, then waits for the next change (client-go
// informers on the StatefulSet and its pods), the instant partition.WakeAt names, or
// Options.Resync (10 s); Abort restores the current revision's
// template (kubectl's StatefulSet rollback patch) with the partition at 0.
//
// The lease (package objlease, annotation rollplan.dev/drive-lease) keeps two drives off one
// StatefulSet: Run takes it before any other write (refused with a one-line error while
// another driver's lease is valid, unless Force), renews it when a third is left (also while
// it waits or bakes), stops without writing when another driver took it, and removes it when
// the run ends. Every partition write also tests the stored value first (a JSON patch test op).
package stsdrive
