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
		hs := d.held.state()
		b := hs.Bounds()
		start := snap.Start()
		rest, err := PlanSteps(b, start)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d.ref(), err)
		}
		if len(rest) == 0 {
			res, err := d.finish(ctx)
			if errors.Is(err, errReplan) {
				continue
			}
			return res, err
		}
		step := rest[0]
		done := max(hs.Step, hs.Steps-len(rest))
		if done+len(rest) != hs.Steps || done != hs.Step {
			if err := d.writeState(ctx, func(s *State) { s.Step, s.Steps = done, done+len(rest) }); err != nil {
				return nil, err
			}
		}
		number, of := done+1, done+len(rest)
		if reason := d.holdReason(done); reason != "" {
			return d.hold(ctx, reason)
		}
		if needBake && d.opts.Interval > 0 {
			d.out.linef("baking %s before step %d/%d", d.opts.Interval, number, of)
			if err := d.sleep(ctx, d.opts.Interval); err != nil {
				return nil, err
			}
			needBake = false
			continue // read again after the bake
		}
		needBake = false
		if d.opts.Confirm != nil && !d.confirmed {
			ans, err := d.opts.Confirm(ctx, StepInfo{Number: number, Of: of, Step: step, Bounds: b, Phase: hs.Phase})
			if err != nil {
				return nil, err
			}
			switch ans {
			case AnswerHold:
				return d.hold(ctx, fmt.Sprintf("held at the prompt before step %d/%d", number, of))
			case AnswerAbort:
				if hs.Phase == PhaseAbort {
					return d.hold(ctx, "abort asked during an abort: held")
				}
				if err := d.startAbort(ctx); err != nil {
					return nil, err
				}
				d.confirmed = true // the abort answer confirms the first step back
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
			d.out.linef("step %d/%d: %v", number, of, to)
			if len(to.pods) > 0 {
				d.out.linef("pods not available:")
			}
			for _, p := range to.pods {
				d.out.linef("  %s", p)
			}
			return d.hold(ctx, fmt.Sprintf("step %d/%d timed out: %v", number, of, to))
		case err != nil:
			return nil, err
		}
		d.stepsRun++
		if err := d.writeState(ctx, func(s *State) { s.Step = number; s.Steps = max(s.Steps, number) }); err != nil {
			return nil, err
		}
		needBake = true
	}
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
