package workload

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/utils/ptr"
)

func TestStatus(t *testing.T) {
	sts := statefulSet("db:1")
	sts.Generation, sts.Status.ObservedGeneration = 2, 2
	sts.Status.ReadyReplicas = 1
	ds := daemonSet("db:1")
	ds.Generation, ds.Status.ObservedGeneration = 1, 1
	ds.Status.DesiredNumberScheduled, ds.Status.UpdatedNumberScheduled, ds.Status.NumberAvailable = 3, 3, 3
	onDelete := statefulSet("db:1")
	onDelete.Spec.UpdateStrategy.Type = appsv1.OnDeleteStatefulSetStrategyType
	partitioned := statefulSet("db:1")
	partitioned.Generation, partitioned.Status.ObservedGeneration = 1, 1
	partitioned.Status.ReadyReplicas, partitioned.Status.UpdatedReplicas = 3, 1
	partitioned.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr.To[int32](1)}
	for _, c := range []struct {
		w       Workload
		want    string
		done    bool
		wantErr string
	}{
		{Workload{StatefulSet: sts}, "Waiting for 2 pods to be ready...\n", false, ""},
		{Workload{DaemonSet: ds}, "daemon set \"db\" successfully rolled out\n", true, ""},
		{Workload{StatefulSet: onDelete}, "", true, "rollout status is only available for RollingUpdate strategy type"},
		{Workload{StatefulSet: partitioned}, "Waiting for partitioned roll out to finish: 1 out of 2 new pods have been updated...\n", false, ""},
	} {
		v, err := Status(c.w)
		if err != nil {
			t.Fatal(err)
		}
		if v.Message != c.want || v.Done != c.done || (v.Err == nil) != (c.wantErr == "") || v.Err != nil && !strings.Contains(v.Err.Error(), c.wantErr) {
			t.Errorf("%s: %+v, want %q %v %q", c.w.Ref(), v, c.want, c.done, c.wantErr)
		}
	}
}
