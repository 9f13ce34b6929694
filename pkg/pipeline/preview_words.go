package pipeline

import (
	"fmt"
	"strings"
)

// Words is the change in a few words, the CHANGE cell of preview's summary ("manifest
// web.yaml, image web=nginx:1.19, replicas 3, undo to revision 2, restart"; "" without a
// change flag; printer.ChangeCell).
func (c DeploymentChange) Words() string {
	var w []string
	if c.Filename != "" {
		w = append(w, "manifest "+c.Filename)
	}
	if len(c.Images) > 0 {
		w = append(w, "image "+strings.Join(c.Images, " "))
	}
	if c.ReplicasSet {
		w = append(w, fmt.Sprintf("replicas %d", c.Replicas))
	}
	if c.ToRevisionSet {
		w = append(w, fmt.Sprintf("undo to revision %d", c.ToRevision))
	}
	if c.Restart {
		w = append(w, "restart")
	}
	return strings.Join(w, ", ")
}
