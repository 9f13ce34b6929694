package drive

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// Comparison is the driver's plan beside the controller's for the same change.
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

// PrintPlan writes the driver's plan as a table: one row per step, from step done+1.
func PrintPlan(w io.Writer, b Bounds, steps []Step, done int) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "STEP\tNEW\tWAIT FOR\tOLD\tPODS\tAVAILABLE AFTER\tNOTE")
	for i, st := range steps {
		newCol := fmt.Sprintf("%s %d -> %d", st.New.Name, st.New.From, st.New.To)
		if st.Create {
			newCol = fmt.Sprintf("create %s with %d", st.New.Name, st.New.To)
		} else if st.New.From == st.New.To {
			newCol = fmt.Sprintf("%s at %d", st.New.Name, st.New.To)
		}
		var olds []string
		for _, o := range st.Old {
			olds = append(olds, fmt.Sprintf("%s %d -> %d", o.Name, o.From, o.To))
		}
		if len(olds) == 0 {
			olds = []string{"-"}
		}
		var notes []string
		if st.ExtraPod {
			notes = append(notes, fmt.Sprintf("extra pod (maxSurge 0): %d > %d", st.Pods, b.MaxPods()))
		}
		if st.KeptOld {
			notes = append(notes, "keeps an old pod until new is at replicas")
		}
		fmt.Fprintf(tw, "%d\t%s\t%d available\t%s\t%d\t%d\t%s\n", done+i+1, newCol, st.WaitAvailable, strings.Join(olds, ", "), st.Pods, st.AvailableAfter, strings.Join(notes, "; "))
	}
	return tw.Flush()
}

// PrintComparison writes the controller's plan and the differences.
func PrintComparison(w io.Writer, c *Comparison) error {
	fmt.Fprintf(w, "The controller (v%s, simulated; pods available when it stops writing) would make:\n", strings.TrimPrefix(planner.ControllerVersion, "v"))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SYNC\tWAIT\tREPLICASET\tFROM\tTO\tPODS\tAVAILABLE")
	for _, st := range c.Controller.Steps {
		name := c.Controller.ReplicaSets[st.ReplicaSet].Name
		wait := "-"
		if st.Wait != planner.WaitNone {
			wait = string(st.Wait)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%d\t%d\t%d\n", st.Sync, wait, name, st.From, st.To, st.Total, st.Available)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nWhere drive differs, and why:")
	for _, d := range c.Differences {
		fmt.Fprintf(w, "  - %s\n", d)
	}
	return nil
}
