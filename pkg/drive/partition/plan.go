package partition

import "time"

// Step is one partition write of a walk: From -> To replaces ordinals To..From-1 (the
// controller goes highest first); Pause: the walk stops after it (a --pause-after ordinal).
type Step struct {
	Number   int // from 1
	From, To int32
	Pause    bool
}

// Plan lists the partition writes of a walk of replicas pods from the stored partition
// `from` under c, as Next decides them when every pod it waits for becomes available
// (pure; what `drive sts/NAME --dry-run` prints). resumed: the run continues past a pause
// at `from` (no change flags). Errors: Next's (a malformed --step).
//
// Example: replicas 5, from 5, step 2, pause-after [4] -> 5->4 (pause), 4->2, 2->0.
func Plan(replicas, from int32, c Config, resumed bool) ([]Step, error) {
	c.ProgressDeadline = 0
	long := time.Unix(0, 0)
	s := State{Replicas: replicas, Partition: from, UpdateRevision: "update", Now: long.Add(time.Hour), Resumed: resumed}
	for o := range replicas {
		s.Pods = append(s.Pods, Pod{Ordinal: o, Revision: "update", ReadySince: long})
	}
	var steps []Step
	for {
		d, err := Next(s, c)
		if err != nil {
			return nil, err
		}
		switch d.Action {
		case ActionSetPartition:
			steps = append(steps, Step{Number: len(steps) + 1, From: s.Partition, To: d.Partition})
			s.Partition, s.Resumed = d.Partition, false
		case ActionPause:
			if n := len(steps); n > 0 {
				steps[n-1].Pause = true
			}
			s.Resumed = true // plan the rest: the run after the pause
		default: // Done (Wait and Hold cannot happen with every pod available)
			return steps, nil
		}
	}
}
