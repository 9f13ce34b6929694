package printer

import (
	"fmt"
	"io"
	"strings"

	"k8s.io/cli-runtime/pkg/printers"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/status"
)

// StatusShower returns how kubectl-rollplan status shows statuses on out, called with every
// Deployment's last status at each change (status.Follow's show). p is the -o printer (nil:
// human). With p the object is printed (a RolloutStatus for one named Deployment, else a
// RolloutStatusList) whenever a StatusKey changed; human: without watch the block of one
// named Deployment (one) or one StatusLine per Deployment; with watch on a terminal
// (terminal(), asked only then) the same redrawn in place (Redraw); otherwise a line per
// Deployment whose line changed.
func StatusShower(out io.Writer, p printers.ResourcePrinter, watch bool, terminal func() bool, one bool) func([]*status.Status) error {
	if p != nil {
		changed := statusChangeFilter()
		return func(sts []*status.Status) error {
			if !changed(sts) {
				return nil
			}
			if one && len(sts) == 1 {
				return p.PrintObj(NewRolloutStatus(sts[0]), out)
			}
			return p.PrintObj(NewRolloutStatusList(sts), out)
		}
	}
	render := func(sts []*status.Status) string {
		var b strings.Builder
		if one && len(sts) == 1 {
			_ = PrintRolloutStatus(&b, NewRolloutStatus(sts[0]))
			return b.String()
		}
		for _, s := range sts {
			b.WriteString(StatusLine(NewRolloutStatus(s)) + "\n")
		}
		return b.String()
	}
	switch {
	case !watch:
		return func(sts []*status.Status) error { _, err := fmt.Fprint(out, render(sts)); return err }
	case terminal():
		r := &Redraw{W: out}
		return func(sts []*status.Status) error { return r.Draw(render(sts)) }
	}
	last := map[string]string{}
	return func(sts []*status.Status) error {
		for _, s := range sts {
			obj := NewRolloutStatus(s)
			key := StatusKey(obj)
			if last[s.Namespace+"/"+s.Name] == key {
				continue
			}
			last[s.Namespace+"/"+s.Name] = key
			if _, err := fmt.Fprintln(out, StatusLine(obj)); err != nil {
				return err
			}
		}
		return nil
	}
}

// statusChangeFilter returns a function that reports whether statuses differ (by StatusKey)
// from those it was last given.
func statusChangeFilter() func([]*status.Status) bool {
	var last string
	return func(sts []*status.Status) bool {
		var b strings.Builder
		for _, s := range sts {
			b.WriteString(StatusKey(NewRolloutStatus(s)) + "\n")
		}
		if b.String() == last {
			return false
		}
		last = b.String()
		return true
	}
}

// PrintContextStatuses prints the statuses of several contexts (pipeline.ReadContextsStatus)
// and returns every status read. Human (p nil): one block headed "Context: NAME" per context
// for one named Deployment (one), else one line per Deployment led by its context, padded to
// the longest name; -o: one RolloutStatusList whose items carry their context. On errOut:
// none (e.g. "No resources found") when no context failed and none had a Deployment, then
// one line "error: context NAME: REASON" per context that could not be read (failed counts
// them). Errors: out's and p's.
func PrintContextStatuses(out, errOut io.Writer, p printers.ResourcePrinter, results []pipeline.ContextStatus, one bool, none string) (all []*status.Status, failed int, err error) {
	list := NewRolloutStatusList(nil)
	width := 0
	for _, r := range results {
		width = max(width, len(r.Context))
	}
	var b strings.Builder
	for _, r := range results {
		if r.Err != nil {
			failed++
			continue
		}
		for _, s := range r.Statuses {
			all = append(all, s)
			obj := NewRolloutStatus(s)
			obj.Context = r.Context
			switch {
			case p != nil:
				list.Items = append(list.Items, *obj)
			case one:
				if b.Len() > 0 {
					b.WriteString("\n")
				}
				fmt.Fprintf(&b, "Context: %s\n", r.Context)
				_ = PrintRolloutStatus(&b, obj)
			default:
				fmt.Fprintf(&b, "%-*s  %s\n", width, r.Context, StatusLine(obj))
			}
		}
	}
	if p != nil {
		if err := p.PrintObj(list, out); err != nil {
			return nil, failed, err
		}
	} else if _, err := fmt.Fprint(out, b.String()); err != nil {
		return nil, failed, err
	}
	if len(all) == 0 && failed == 0 {
		fmt.Fprintln(errOut, none)
	}
	for _, r := range results {
		if r.Err != nil {
			PrintContextFailure(errOut, r.Context, r.Err)
		}
	}
	return all, failed, nil
}
