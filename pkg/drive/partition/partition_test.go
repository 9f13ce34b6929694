package partition

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/intstr"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// pods builds replicas pods; ordinals >= updatedFrom run "new" and are Ready since t0.
func pods(replicas, updatedFrom int32) []Pod {
	var out []Pod
	for o := int32(0); o < replicas; o++ {
		rev := "old"
		if o >= updatedFrom {
			rev = "new"
		}
		out = append(out, Pod{Ordinal: o, Revision: rev, ReadySince: t0})
	}
	return out
}

func TestNext(t *testing.T) {
	two := Config{Step: intstr.FromInt32(2), ProgressDeadline: time.Minute}
	cases := []struct {
		name string
		s    State
		c    Config
		want Decision
	}{
		{"start at replicas lowers by step", State{Replicas: 5, Partition: 5, UpdateRevision: "new", Pods: pods(5, 5), Now: t0}, two,
			Decision{ActionSetPartition, 3, "lower partition 5 -> 3"}},
		{"waits for the highest unreplaced ordinal", State{Replicas: 5, Partition: 3, UpdateRevision: "new", Pods: pods(5, 4), Now: t0, StepStarted: t0}, two,
			Decision{ActionWait, 3, "waiting for pod ordinal 3 on revision new to be available"}},
		{"minReadySeconds not yet elapsed waits", State{Replicas: 2, Partition: 1, UpdateRevision: "new", MinReadySeconds: 10, Pods: pods(2, 1), Now: t0.Add(5 * time.Second), StepStarted: t0}, two,
			Decision{ActionWait, 1, "waiting for pod ordinal 1 on revision new to be available"}},
		{"minReadySeconds elapsed lowers", State{Replicas: 2, Partition: 1, UpdateRevision: "new", MinReadySeconds: 10, Pods: pods(2, 1), Now: t0.Add(10 * time.Second), StepStarted: t0}, two,
			Decision{ActionSetPartition, 0, "lower partition 1 -> 0"}},
		{"deadline passed holds", State{Replicas: 3, Partition: 2, UpdateRevision: "new", Pods: pods(3, 3), Now: t0.Add(2 * time.Minute), StepStarted: t0}, two,
			Decision{ActionHold, 2, "pod ordinal 2 not replaced and available within 1m0s"}},
		{"failed new pod holds at once", State{Replicas: 3, Partition: 2, UpdateRevision: "new", Pods: []Pod{{Ordinal: 0, Revision: "old", ReadySince: t0}, {Ordinal: 1, Revision: "old", ReadySince: t0}, {Ordinal: 2, Revision: "new", Failed: true}}, Now: t0, StepStarted: t0}, two,
			Decision{ActionHold, 2, "pod ordinal 2 of revision new failed"}},
		{"all replaced at 0 is done", State{Replicas: 3, Partition: 0, UpdateRevision: "new", Pods: pods(3, 0), Now: t0}, two,
			Decision{ActionDone, 0, "every pod runs the update revision and is available"}},
		{"percentage rounds up", State{Replicas: 10, Partition: 10, UpdateRevision: "new", Pods: pods(10, 10), Now: t0}, Config{Step: intstr.FromString("25%")},
			Decision{ActionSetPartition, 7, "lower partition 10 -> 7"}},
		{"walk stops at a pause-after ordinal", State{Replicas: 5, Partition: 5, UpdateRevision: "new", Pods: pods(5, 5), Now: t0}, Config{Step: intstr.FromInt32(3), PauseAfter: []int32{4}},
			Decision{ActionSetPartition, 4, "lower partition 5 -> 4"}},
		{"pauses after the canary ordinal", State{Replicas: 5, Partition: 4, UpdateRevision: "new", Pods: pods(5, 4), Now: t0}, Config{Step: intstr.FromInt32(3), PauseAfter: []int32{4}},
			Decision{ActionPause, 4, "paused after ordinal 4 (--pause-after)"}},
		{"resumed goes on past the pause", State{Replicas: 5, Partition: 4, UpdateRevision: "new", Pods: pods(5, 4), Now: t0, Resumed: true}, Config{Step: intstr.FromInt32(3), PauseAfter: []int32{4}},
			Decision{ActionSetPartition, 1, "lower partition 4 -> 1"}},
		{"step 0 still moves one", State{Replicas: 2, Partition: 2, UpdateRevision: "new", Pods: pods(2, 2), Now: t0}, Config{Step: intstr.FromInt32(0)},
			Decision{ActionSetPartition, 1, "lower partition 2 -> 1"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Next(tc.s, tc.c)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

// TestWalkReachesDone plays the controller (replace every pod at or above the partition at
// once, Ready at once) under Next and checks partitions only ever go down and end at 0.
func TestWalkReachesDone(t *testing.T) {
	for _, step := range []intstr.IntOrString{intstr.FromInt32(1), intstr.FromInt32(2), intstr.FromString("30%"), intstr.FromInt32(9)} {
		s := State{Replicas: 7, Partition: 7, UpdateRevision: "new", Pods: pods(7, 7), Now: t0}
		var seen []int32
		for i := 0; i < 20; i++ {
			d, err := Next(s, Config{Step: step})
			if err != nil {
				t.Fatal(err)
			}
			if d.Action == ActionDone {
				break
			}
			if d.Action != ActionSetPartition || d.Partition >= s.Partition {
				t.Fatalf("step %s: unexpected %+v at partition %d", step.String(), d, s.Partition)
			}
			seen = append(seen, d.Partition)
			s.Partition = d.Partition
			s.Pods = pods(7, d.Partition)
		}
		if len(seen) == 0 || seen[len(seen)-1] != 0 {
			t.Errorf("step %s: partitions %v do not end at 0", step.String(), seen)
		}
	}
}

func TestStepSizeBadPercent(t *testing.T) {
	if _, err := StepSize(intstr.FromString("abc"), 4); err == nil {
		t.Error("want an error for --step abc")
	}
}
