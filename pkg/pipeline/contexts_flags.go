package pipeline

import (
	"errors"
	"slices"
	"strings"
)

// Sources returns the Live Source of each context of names, in order, each retrying reads
// for ContextRetry; a context whose Source cannot be made (its namespace unreadable from the
// kubeconfig) has a nil Source and its error (the two slices are parallel).
func (k *Kubeconfig) Sources(names []string) ([]*Live, []error) {
	srcs, errs := make([]*Live, len(names)), make([]error, len(names))
	for i, name := range names {
		src, err := k.Source(name)
		if err != nil {
			errs[i] = err
			continue
		}
		src.RetryFor = ContextRetry
		srcs[i] = src
	}
	return srcs, errs
}

// CompleteList completes the last item of a comma-separated list (--contexts=prod-eu,<TAB>)
// with the names not in it yet, each with the items before it (pure).
func CompleteList(names []string, toComplete string) []string {
	done := strings.Split(toComplete, ",")
	partial, done := done[len(done)-1], done[:len(done)-1]
	prefix := ""
	if len(done) > 0 {
		prefix = strings.Join(done, ",") + ","
	}
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, partial) && !slices.Contains(done, n) {
			out = append(out, prefix+n)
		}
	}
	return out
}

// ResolveFlags checks --contexts (contexts), --all-contexts (all) and --context
// (contextGiven) and resolves the contexts (Resolve) before any request. Errors: both
// --contexts and --all-contexts; --context with them; k nil (a command built without the
// kubeconfig's flags); Resolve's.
func (k *Kubeconfig) ResolveFlags(contexts []string, all, contextGiven bool) ([]string, error) {
	switch {
	case len(contexts) > 0 && all:
		return nil, errors.New("--contexts and --all-contexts: give one of them")
	case contextGiven:
		return nil, errors.New("--context and --contexts/--all-contexts: name every context in --contexts")
	case k == nil:
		return nil, errors.New("--contexts: this command was built without the kubeconfig's flags")
	}
	return k.Resolve(contexts, all)
}
