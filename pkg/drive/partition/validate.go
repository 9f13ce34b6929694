package partition

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/jsonpatch"
)

// PartitionPath is the JSON pointer of the field the drive walks.
const PartitionPath = "/spec/updateStrategy/rollingUpdate/partition"

// Validate refuses StatefulSets the partition drive cannot walk, with a one-line error
// naming the object, the field and what to do: updateStrategy OnDelete (the controller
// replaces nothing until pods are deleted) and spec.ordinals.start other than 0.
func Validate(sts *appsv1.StatefulSet) error {
	ref := fmt.Sprintf("statefulset %s/%s", sts.Namespace, sts.Name)
	if sts.Spec.UpdateStrategy.Type == appsv1.OnDeleteStatefulSetStrategyType {
		return fmt.Errorf("%s: spec.updateStrategy.type is OnDelete, which has no partition to drive; set it to RollingUpdate or delete the pods yourself", ref)
	}
	if sts.Spec.Ordinals != nil && sts.Spec.Ordinals.Start != 0 {
		return fmt.Errorf("%s: spec.ordinals.start is %d; drive walks only StatefulSets whose ordinals start at 0", ref, sts.Spec.Ordinals.Start)
	}
	return nil
}

// CurrentPartition is spec.updateStrategy.rollingUpdate.partition as stored (0 when unset).
func CurrentPartition(sts *appsv1.StatefulSet) int32 {
	if ru := sts.Spec.UpdateStrategy.RollingUpdate; ru != nil {
		return ptr.Deref(ru.Partition, 0)
	}
	return 0
}

// PartitionOps is the guarded JSON patch that moves the partition from -> to: a test of
// the stored value, then the replace. When rollingUpdate is absent it adds the whole
// object (the test cannot name a missing field, so the resourceVersion guards that write).
func PartitionOps(sts *appsv1.StatefulSet, to int32) []jsonpatch.Op {
	ru := sts.Spec.UpdateStrategy.RollingUpdate
	if ru == nil {
		return []jsonpatch.Op{
			jsonpatch.Test("/metadata/resourceVersion", sts.ResourceVersion),
			jsonpatch.Add("/spec/updateStrategy/rollingUpdate", map[string]any{"partition": to}),
		}
	}
	if ru.Partition == nil {
		return []jsonpatch.Op{
			jsonpatch.Test("/metadata/resourceVersion", sts.ResourceVersion),
			jsonpatch.Add(PartitionPath, to),
		}
	}
	return []jsonpatch.Op{jsonpatch.Test(PartitionPath, *ru.Partition), jsonpatch.Replace(PartitionPath, to)}
}
