package partition

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/jsonpatch"
)

func sts(strategy appsv1.StatefulSetUpdateStrategy) *appsv1.StatefulSet {
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "db", ResourceVersion: "7"},
		Spec:       appsv1.StatefulSetSpec{UpdateStrategy: strategy},
	}
}

func TestValidate(t *testing.T) {
	err := Validate(sts(appsv1.StatefulSetUpdateStrategy{Type: appsv1.OnDeleteStatefulSetStrategyType}))
	if err == nil || !strings.Contains(err.Error(), "statefulset ns/db: spec.updateStrategy.type is OnDelete") || strings.Contains(err.Error(), "\n") {
		t.Errorf("OnDelete: got %v", err)
	}
	if err := Validate(sts(appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType})); err != nil {
		t.Errorf("RollingUpdate: %v", err)
	}
	s := sts(appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType})
	s.Spec.Ordinals = &appsv1.StatefulSetOrdinals{Start: 3}
	if err := Validate(s); err == nil {
		t.Error("ordinals.start 3: want an error")
	}
}

func TestPartitionOps(t *testing.T) {
	cases := []struct {
		name     string
		strategy appsv1.StatefulSetUpdateStrategy
		want     []jsonpatch.Op
	}{
		{"no rollingUpdate adds it under a resourceVersion test", appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType},
			[]jsonpatch.Op{jsonpatch.Test("/metadata/resourceVersion", "7"), jsonpatch.Add("/spec/updateStrategy/rollingUpdate", map[string]any{"partition": int32(2)})}},
		{"unset partition is added", appsv1.StatefulSetUpdateStrategy{RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{}},
			[]jsonpatch.Op{jsonpatch.Test("/metadata/resourceVersion", "7"), jsonpatch.Add(PartitionPath, int32(2))}},
		{"set partition is tested then replaced", appsv1.StatefulSetUpdateStrategy{RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr.To[int32](5)}},
			[]jsonpatch.Op{jsonpatch.Test(PartitionPath, int32(5)), jsonpatch.Replace(PartitionPath, int32(2))}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := sts(tc.strategy)
			if diff := cmp.Diff(tc.want, PartitionOps(s, 2)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
	if got := CurrentPartition(sts(appsv1.StatefulSetUpdateStrategy{RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr.To[int32](4)}})); got != 4 {
		t.Errorf("CurrentPartition = %d, want 4", got)
	}
}
