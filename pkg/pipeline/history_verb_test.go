package pipeline

import (
	"slices"
	"strings"
	"testing"
)

// TestHistoryConfigDiffArgs: --diff A B takes two numbers off the end of the arguments, and
// only with --diff; a revision that is not positive is refused.
func TestHistoryConfigDiffArgs(t *testing.T) {
	c := HistoryConfig{Diff: true}
	args, err := c.ParseDiffArgs([]string{"web", "2", "5"})
	if err != nil || !slices.Equal(args, []string{"web"}) || c.DiffFrom != 2 || c.DiffTo != 5 {
		t.Fatalf("got %v %v from %d to %d, want [web] 2 5", args, err, c.DiffFrom, c.DiffTo)
	}
	c = HistoryConfig{}
	if args, _ := c.ParseDiffArgs([]string{"web", "2", "5"}); len(args) != 3 || c.DiffFrom != 0 {
		t.Fatalf("without --diff: got %v from %d", args, c.DiffFrom)
	}
	c = HistoryConfig{Diff: true}
	if _, err := c.ParseDiffArgs([]string{"web", "0", "5"}); err == nil || !strings.Contains(err.Error(), "--diff 0 5") {
		t.Fatalf("--diff 0 5: got %v", err)
	}
}

// TestHistoryConfigValidate: each refused combination names its flags.
func TestHistoryConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		c           HistoryConfig
		many, human bool
		want        string
	}{
		{HistoryConfig{Revision: -1}, false, true, "--revision -1"},
		{HistoryConfig{Revision: 2, Diff: true}, false, true, "--revision and --diff do not go together"},
		{HistoryConfig{Diff: true}, false, false, "drop -o"},
		{HistoryConfig{Revision: 2}, true, true, "name one Deployment"},
		{HistoryConfig{Revision: 2}, false, false, ""},
	} {
		err := tc.c.Validate(tc.many, tc.human)
		if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v many=%v human=%v: got %v, want %q", tc.c, tc.many, tc.human, err, tc.want)
		}
	}
}
