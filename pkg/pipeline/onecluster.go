package pipeline

import (
	"fmt"
	"strings"
)

// WritingVerbs are the commands that write to a cluster: one cluster per write, so they take
// --contexts and --all-contexts only to refuse more than one context (issue 19). One context
// is --context.
var WritingVerbs = []string{"undo", "pause", "resume", "restart", "drive", "abort"}

// OneCluster refuses a writing verb given more than one context (contexts: the resolved
// --contexts or --all-contexts, in order): one line naming them and what to do; nil for one
// context or none.
//
//	OneCluster("undo", []string{"a", "b"}) // "undo writes to one cluster: --contexts names 2 contexts (a, b); run it once per context with --context"
func OneCluster(verb string, contexts []string) error {
	if len(contexts) <= 1 {
		return nil
	}
	return fmt.Errorf("%s writes to one cluster: --contexts names %d contexts (%s); run it once per context with --context", verb, len(contexts), strings.Join(contexts, ", "))
}
