package pipeline

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCompleteList(t *testing.T) {
	names := []string{"prod-eu", "prod-us", "staging"}
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", []string{"prod-eu", "prod-us", "staging"}},
		{"prod", []string{"prod-eu", "prod-us"}},
		{"prod-eu,", []string{"prod-eu,prod-us", "prod-eu,staging"}},
		{"prod-eu,st", []string{"prod-eu,staging"}},
		{"prod-eu,staging,prod-", []string{"prod-eu,staging,prod-us"}},
	} {
		if d := cmp.Diff(tc.want, CompleteList(names, tc.in)); d != "" {
			t.Errorf("%q (-want +got):\n%s", tc.in, d)
		}
	}
}

// TestResolveFlagsRefuses: the flag combinations refused before the kubeconfig is read.
func TestResolveFlagsRefuses(t *testing.T) {
	var none *Kubeconfig
	for _, tc := range []struct {
		contexts     []string
		all, context bool
		want         string
	}{
		{[]string{"a"}, true, false, "--contexts and --all-contexts: give one of them"},
		{[]string{"a"}, false, true, "--context and --contexts/--all-contexts: name every context in --contexts"},
		{nil, true, false, "--contexts: this command was built without the kubeconfig's flags"},
	} {
		if _, err := none.ResolveFlags(tc.contexts, tc.all, tc.context); err == nil || err.Error() != tc.want {
			t.Errorf("ResolveFlags(%v, %v, %v) = %v, want %q", tc.contexts, tc.all, tc.context, err, tc.want)
		}
	}
}
