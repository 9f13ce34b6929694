package partition

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"
)

func TestWakeAt(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 5, 0, time.UTC)
	cfg := Config{Step: intstr.FromInt32(1), ProgressDeadline: time.Minute}
	started := now.Add(-5 * time.Second)
	cases := []struct {
		name string
		s    State
		want time.Time
	}{
		{"pod Ready, minReadySeconds not yet passed: when it becomes available",
			State{Replicas: 3, Partition: 2, UpdateRevision: "r2", MinReadySeconds: 10, Now: now, StepStarted: started,
				Pods: []Pod{{Ordinal: 2, Revision: "r2", ReadySince: now.Add(-2 * time.Second)}}},
			now.Add(8 * time.Second)},
		{"pod not Ready: the progress deadline",
			State{Replicas: 3, Partition: 2, UpdateRevision: "r2", Now: now, StepStarted: started,
				Pods: []Pod{{Ordinal: 2, Revision: "r2"}}},
			started.Add(time.Minute + time.Nanosecond)},
		{"pod not created yet: the progress deadline",
			State{Replicas: 3, Partition: 2, UpdateRevision: "r2", Now: now, StepStarted: started},
			started.Add(time.Minute + time.Nanosecond)},
		{"every pod available: only a change moves the walk",
			State{Replicas: 3, Partition: 2, UpdateRevision: "r2", MinReadySeconds: 1, Now: now, StepStarted: started,
				Pods: []Pod{{Ordinal: 2, Revision: "r2", ReadySince: now.Add(-time.Minute)}}},
			time.Time{}},
		{"pods below the partition do not count",
			State{Replicas: 3, Partition: 2, UpdateRevision: "r2", MinReadySeconds: 10, Now: now,
				Pods: []Pod{{Ordinal: 0, Revision: "r1", ReadySince: now}, {Ordinal: 2, Revision: "r2", ReadySince: now.Add(-time.Minute)}}},
			time.Time{}},
	}
	for _, c := range cases {
		if got := WakeAt(c.s, cfg); !got.Equal(c.want) {
			t.Errorf("%s: WakeAt = %v, want %v", c.name, got, c.want)
		}
	}
}
