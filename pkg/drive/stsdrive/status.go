package stsdrive

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/drive/objlease"
	"github.com/rollplan/kubectl-rollplan/pkg/drive/partition"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
	"github.com/rollplan/kubectl-rollplan/pkg/workload/live"
)

// Status is `drive status sts/NAME` of sts at now (pure; kind DriveStatus with WorkloadKind
// "StatefulSet" and its statefulSet part): the lease (objlease, annotation
// rollplan.dev/drive-lease: holder, expiry, whether valid; Driving is the same), the
// partition and the status counts and revisions. Held: a walk stands midway (partition
// above 0 and status.updateRevision not yet status.currentRevision), whether or not a
// driver runs. A lease annotation that does not parse is Problem, not an error.
func Status(sts *appsv1.StatefulSet, now time.Time) *v1alpha1.DriveStatus {
	p := partition.CurrentPartition(sts)
	s := &v1alpha1.StatefulSetDriveStatus{
		Partition: p, Replicas: replicasOf(sts), UpdatedReplicas: sts.Status.UpdatedReplicas, ReadyReplicas: sts.Status.ReadyReplicas,
		CurrentRevision: sts.Status.CurrentRevision, UpdateRevision: sts.Status.UpdateRevision,
		Strategy: string(sts.Spec.UpdateStrategy.Type),
	}
	r := &v1alpha1.DriveStatus{
		TypeMeta:  metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "DriveStatus"},
		Namespace: sts.Namespace, Name: sts.Name, WorkloadKind: "StatefulSet", StatefulSet: s,
		Held:        p > 0 && sts.Status.UpdateRevision != sts.Status.CurrentRevision,
		Strategy:    fmt.Sprintf("%s (partition %d)", s.Strategy, p),
		ReplicaSets: []v1alpha1.DriveReplicaSet{},
	}
	l, err := objlease.Read(sts)
	switch {
	case err != nil:
		r.Problem = err.Error()
	case l != nil:
		exp := v1alpha1.NewTimestamp(l.Expires)
		s.Holder, s.LeaseExpires, s.LeaseValid = l.Holder, &exp, l.Valid(now)
		r.Driving = s.LeaseValid
	}
	return r
}

// ReadStatus reads StatefulSet ref and returns its Status at now. Errors: the read's.
func ReadStatus(ctx context.Context, cs kubernetes.Interface, ref target.KindRef, now time.Time) (*v1alpha1.DriveStatus, error) {
	w, err := live.Get(ctx, cs, ref)
	if err != nil {
		return nil, err
	}
	return Status(w.StatefulSet, now), nil
}
