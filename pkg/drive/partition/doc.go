// Package partition is the pure decision core of the StatefulSet partition drive
// (`kubectl rollplan drive sts/NAME`, issue 21): state in, the next partition, a hold or done
// out. It does no I/O; the walk around it (lease, guard, writes, watches) is not here yet.
//
// The walk mirrors how the v1.36.3 StatefulSet controller rolls out under
// spec.updateStrategy.rollingUpdate.partition (updateStatefulSet,
// pkg/controller/statefulset/stateful_set_control.go): pods with ordinal >= partition get
// status.updateRevision, highest ordinal first, the rest keep status.currentRevision. The
// drive starts at partition = replicas (nothing replaced), then lowers it by Step pods per
// step; before each lowering every pod at or above the partition must run the update
// revision and be available (Ready for minReadySeconds). PauseAfter ordinals stop the walk
// once that ordinal is replaced and available (a canary). A step whose pods are not available
// within the progress deadline, or a pod that failed, holds the walk (exit code 4).
//
// Not modelled: OnDelete (refused by Validate), spec.ordinals.start other than 0,
// maxUnavailable (the drive lowers the partition only after the previous step is available).
package partition
