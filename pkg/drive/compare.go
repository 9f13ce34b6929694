package drive

import (
	"fmt"

	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// Comparison is the driver's plan beside the controller's for the same change
// (printer.PrintComparison renders it).
type Comparison struct {
	// Controller is planner.Simulate's plan (readiness batched, the Deployment unpaused).
	Controller *planner.Plan
	// Bounds and Steps are the driver's plan.
	Bounds Bounds
	Steps  []Step
	// Differences say where the two differ and why, one sentence each.
	Differences []string
}

// Compare simulates the controller on the change of tk (the desired Deployment unpaused,
// pods available once the controller stops writing, as the driver waits) and says where the
// driver's plan differs from it.
func Compare(tk *Takeover) (*Comparison, error) {
	d := tk.Desired.DeepCopy()
	d.Spec.Paused = false
	plan, err := planner.Simulate(planner.Input{Deployment: d, ReplicaSets: tk.ReplicaSets, Readiness: planner.ReadinessBatched})
	if err != nil {
		return nil, fmt.Errorf("simulate the controller: %w", err)
	}
	c := &Comparison{Controller: plan, Bounds: tk.Bounds, Steps: tk.Steps}
	c.Differences = differences(plan, tk)
	return c, nil
}

func differences(plan *planner.Plan, tk *Takeover) []string {
	b, steps := tk.Bounds, tk.Steps
	var out []string
	cWrites, cWaits, cPeak := 0, 0, int32(0)
	early := false
	for i, st := range plan.Steps {
		cWrites++
		if st.Wait != planner.WaitNone {
			cWaits++
		}
		cPeak = max(cPeak, st.Total)
		newRS := plan.ReplicaSets[st.ReplicaSet].New
		if !newRS && st.To < st.From && st.Wait == planner.WaitNone && i > 0 && plan.ReplicaSets[plan.Steps[i-1].ReplicaSet].New {
			early = true
		}
	}
	dWrites, dPeak, dMin := 0, int32(0), b.MinAvailable()
	extra, kept := false, false
	for _, st := range steps {
		dWrites += st.Writes()
		dPeak = max(dPeak, st.Pods)
		dMin = min(dMin, st.AvailableAfter)
		extra = extra || st.ExtraPod
		kept = kept || st.KeptOld
	}
	out = append(out, fmt.Sprintf("the controller makes %d ReplicaSet writes and waits for pods %d times, with at most %d pods; drive makes %d writes in %d steps (one wait each), with at most %d pods and never fewer than %d available from its own writes",
		cWrites, cWaits, cPeak, dWrites, len(steps), dPeak, dMin))
	if early {
		out = append(out, fmt.Sprintf("order: the controller scales old ReplicaSets down in the same sync as it scales the new one up, spending maxUnavailable (%d) before any new pod is available; drive scales old ReplicaSets down only once the step's new pods are available", b.MaxUnavailable))
	}
	if extra {
		out = append(out, fmt.Sprintf("maxSurge is 0: the controller scales old pods down first, which a client cannot do while only the old ReplicaSet is active (the paused controller scales a lone ReplicaSet back to spec.replicas); drive adds one pod instead, %d at most, at the first step and at the last", b.Replicas+1))
	}
	if kept {
		out = append(out, "drive keeps one old pod until the new ReplicaSet is at spec.replicas: with strategy Recreate set while it holds the Deployment, the paused controller scales a lone active ReplicaSet to spec.replicas")
	}
	if tk.Desired.Spec.Paused {
		out = append(out, "the Deployment is paused: the controller would not roll this change out until resumed; drive rolls it out and hands it back paused")
	}
	return out
}
