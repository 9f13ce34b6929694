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
