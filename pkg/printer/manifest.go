package printer

import (
	"fmt"
	"io"
	"strings"

	"github.com/rollplan/kubectl-rollplan/pkg/manifest"
)

// ManifestChangeWords is the CHANGE cell of a manifest set's plan: "create" (its first
// rollout), "update" or "none".
func ManifestChangeWords(c manifest.Change) string {
	switch c {
	case manifest.ChangeCreate:
		return "create"
	case manifest.ChangeUpdate:
		return "update"
	case manifest.ChangeNone:
		return "none"
	}
	return ""
}

// PrintOtherKinds writes the line under a manifest set's summary that counts the objects
// rollplan does not plan, by kind ("Also in the set, not planned: 2 ConfigMap, 1 Service");
// nothing when there are none.
func PrintOtherKinds(w io.Writer, kinds []manifest.KindCount) {
	if len(kinds) == 0 {
		return
	}
	parts := make([]string, 0, len(kinds))
	for _, k := range kinds {
		parts = append(parts, fmt.Sprintf("%d %s", k.Count, k.Kind))
	}
	fmt.Fprintf(w, "Also in the set, not planned: %s\n", strings.Join(parts, ", "))
}
