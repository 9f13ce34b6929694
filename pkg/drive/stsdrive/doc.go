// Package stsdrive is the thin I/O around package partition: `kubectl rollplan drive
// sts/NAME` and `drive abort sts/NAME`. Start applies the change with the partition at
// replicas in one guarded write; Walk polls the StatefulSet and its pods every Poll (1 s),
// asks partition.Next and writes its PartitionOps; Abort restores the current revision's
// template (kubectl's StatefulSet rollback patch) with the partition at 0.
//
// There is no lease: pkg/drive's lease is a method set of the Deployment driver over the
// Deployment's annotation and cannot serve another kind without copying it. Two walks of one
// StatefulSet still cannot interleave a write unseen: every partition write tests the stored
// value first (a JSON patch test op), so the loser stops with a one-line error.
package stsdrive
