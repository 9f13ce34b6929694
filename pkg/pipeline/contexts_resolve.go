package pipeline

// ResolveContextFlags is ResolveFlags, then, when the flags name one context, that context
// set as --context (k.Flags.Context): the command then runs, and prints, exactly as with it.
// Returns the contexts, in order. Errors: ResolveFlags'.
func (k *Kubeconfig) ResolveContextFlags(contexts []string, all, contextGiven bool) ([]string, error) {
	names, err := k.ResolveFlags(contexts, all, contextGiven)
	if err != nil {
		return nil, err
	}
	if len(names) == 1 {
		*k.Flags.Context = names[0]
	}
	return names, nil
}

// CompleteContexts completes --contexts: the kubeconfig's contexts not given yet, after the
// names already typed ("prod-eu,<TAB>"; CompleteList). None when k is nil (a command built
// without the kubeconfig's flags). Errors: Contexts'.
func (k *Kubeconfig) CompleteContexts(toComplete string) ([]string, error) {
	if k == nil {
		return nil, nil
	}
	known, err := k.Contexts()
	if err != nil {
		return nil, err
	}
	return CompleteList(known, toComplete), nil
}
