package printer

import (
	"fmt"
	"io"
	"strings"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
)

// KindProgress writes the line `status` adds under kubectl's verdict for a StatefulSet or
// DaemonSet whose rollout is not done:
// `  step K of N (update revision REV); next: Delete web-1 (revision web-abc)` or
// `  step K of N (update revision REV); waiting for: pods to become Ready: web-2`.
func KindProgress(w io.Writer, p *pipeline.KindProgress) {
	fmt.Fprint(w, KindProgressLine(p))
}

// KindProgressLine is KindProgress's line, newline included.
func KindProgressLine(p *pipeline.KindProgress) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  step %d of %d (update revision %s)", p.Updated, p.Total, p.UpdateRevision)
	if len(p.Next) > 0 {
		var ops []string
		for _, op := range p.Next {
			what := op.Pod
			if what == "" {
				what = "a pod"
			}
			if op.Node != "" {
				what += " on node " + op.Node
			}
			ops = append(ops, fmt.Sprintf("%s %s (revision %s)", op.Action, what, op.Revision))
		}
		fmt.Fprintf(&b, "; next: %s", strings.Join(ops, ", "))
	} else if p.Waiting != "" {
		fmt.Fprintf(&b, "; waiting for: %s", p.Waiting)
	}
	b.WriteString("\n")
	return b.String()
}
