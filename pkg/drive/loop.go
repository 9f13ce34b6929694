package drive

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// loop reads, checks and makes the next step until the rollout is complete or holds.
func (d *Driver) loop(ctx context.Context) (*Result, error) {
	needBake := false
	for {
		snap, err := d.read(ctx)
		if err != nil {
			return nil, err
		}
		if err := d.check(ctx, snap); err != nil {
			return nil, err
		}
		pos, err := d.locate(ctx, snap)
		if err != nil {
			return nil, err
		}
		if len(pos.rest) == 0 {
			res, err := d.finish(ctx)
			if errors.Is(err, errReplan) {
				continue
			}
			return res, err
		}
		step := pos.rest[0]
		number, of := pos.done+1, pos.done+len(pos.rest)
		if reason := d.holdReason(pos.done); reason != "" {
			return d.hold(ctx, reason)
		}
		if needBake && d.opts.Interval > 0 {
			d.out.emit(Event{Kind: EventBaking, Duration: d.opts.Interval, Step: number, Steps: of})
			if err := d.sleep(ctx, d.opts.Interval); err != nil {
				return nil, err
			}
			needBake = false
			continue // read again after the bake
		}
		needBake = false
		if d.opts.Confirm != nil && !d.confirmed {
			res, again, err := d.ask(ctx, StepInfo{Number: number, Of: of, Step: step, Bounds: pos.bounds, Phase: pos.phase})
			if res != nil || err != nil {
				return res, err
			}
			if again {
				continue
			}
		}
		d.confirmed = false
		err = d.runStep(ctx, snap, step, number, of)
		var to *stepTimeout
		switch {
		case errors.Is(err, errReplan):
			continue
		case errors.As(err, &to):
			return d.timedOut(ctx, to, number, of)
		case err != nil:
			return nil, err
		}
		d.stepsRun++
		if err := d.writeState(ctx, func(s *State) { s.Step = number; s.Steps = max(s.Steps, number) }); err != nil {
			return nil, err
		}
		d.stepDone()
		needBake = true
	}
}

// position is where the drive stands after a read: its bounds and phase, the steps left,
// and how many are done.
type position struct {
	bounds Bounds
	phase  Phase
	rest   []Step
	done   int
}

// locate plans the rest of the drive from snap and, when steps remain, records the step
// count in the drive state if it changed (a re-plan).
func (d *Driver) locate(ctx context.Context, snap *Snapshot) (position, error) {
	hs := d.held.state()
	pos := position{bounds: hs.Bounds(), phase: hs.Phase}
	rest, err := PlanSteps(pos.bounds, snap.Start())
	if err != nil {
		return position{}, fmt.Errorf("%s: %w", d.ref(), err)
	}
	pos.rest = rest
	if len(rest) == 0 {
		return pos, nil
	}
	done := max(hs.Step, hs.Steps-len(rest))
	if done+len(rest) != hs.Steps || done != hs.Step {
		if err := d.writeState(ctx, func(s *State) { s.Step, s.Steps = done, done+len(rest) }); err != nil {
			return position{}, err
		}
	}
	pos.done = done
	return pos, nil
}

// ask asks before the step of info. It returns the run's result when the answer ends it
// (a hold), again when the loop must read again (an abort started), or neither to make
// the step.
func (d *Driver) ask(ctx context.Context, info StepInfo) (res *Result, again bool, err error) {
	ans, err := d.opts.Confirm(ctx, info)
	if err != nil {
		return nil, false, err
	}
	switch ans {
	case AnswerHold:
		res, err := d.hold(ctx, fmt.Sprintf("held at the prompt before step %d/%d", info.Number, info.Of))
		return res, false, err
	case AnswerAbort:
		if info.Phase == PhaseAbort {
			res, err := d.hold(ctx, "abort asked during an abort: held")
			return res, false, err
		}
		if err := d.startAbort(ctx); err != nil {
			return nil, false, err
		}
		d.confirmed = true // the abort answer confirms the first step back
		return nil, true, nil
	}
	return nil, false, nil
}

// timedOut reports a step whose pods did not become available in time (or were held back
// for --fail-fast-after), with why (stall.Diagnose's reasons) and the pods that are not,
// and holds.
func (d *Driver) timedOut(ctx context.Context, to *stepTimeout, number, of int) (*Result, error) {
	ev := Event{Kind: EventStepTimedOut, Step: number, Steps: of, Message: to.Error(), Unavailable: to.pods}
	for _, r := range to.stall {
		ev.Stalled = append(ev.Stalled, fmt.Sprint(r))
	}
	d.out.emit(ev)
	if to.failFast > 0 {
		return d.hold(ctx, fmt.Sprintf("step %d/%d: %v", number, of, to))
	}
	return d.hold(ctx, fmt.Sprintf("step %d/%d timed out: %v", number, of, to))
}

// holdReason says why the run stops before the step after done, "" to go on.
func (d *Driver) holdReason(done int) string {
	switch {
	case d.opts.Steps > 0 && d.stepsRun >= d.opts.Steps:
		return fmt.Sprintf("--steps %d done (at step %d)", d.opts.Steps, done)
	case d.opts.UntilStep > 0 && done >= d.opts.UntilStep:
		return fmt.Sprintf("--until-step %d reached", d.opts.UntilStep)
	}
	return ""
}

func (d *Driver) sleep(ctx context.Context, t time.Duration) error {
	timer := time.NewTimer(t)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-timer.C:
		return nil
	}
}
