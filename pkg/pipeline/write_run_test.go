package pipeline

import (
	"slices"
	"testing"

	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// TestExternalDiffCommand: KUBECTL_EXTERNAL_DIFF is split on spaces and only arguments of
// letters, digits, '-' and '=' are kept, as kubectl's DiffProgram.getCommand does.
func TestExternalDiffCommand(t *testing.T) {
	cases := []struct {
		env, program string
		args         []string
	}{
		{"diff", "diff", []string{"A", "B"}},
		{"diff -u -N", "diff", []string{"-u", "-N", "A", "B"}},
		{"colordiff --context=3 $(rm) a;b", "colordiff", []string{"--context=3", "A", "B"}},
	}
	for _, tc := range cases {
		program, args := externalDiffCommand(tc.env, "A", "B")
		if program != tc.program || !slices.Equal(args, tc.args) {
			t.Errorf("externalDiffCommand(%q) = %q %q, want %q %q", tc.env, program, args, tc.program, tc.args)
		}
	}
}

// TestKindsNounAndRefuse: the selection's plural names both kinds when both are named, and
// pause/resume of these kinds is refused with one line per object (one for -l/--all).
func TestKindsNounAndRefuse(t *testing.T) {
	sts := target.KindRef{Kind: target.KindStatefulSet, Name: "db"}
	ds := target.KindRef{Kind: target.KindDaemonSet, Name: "agent"}
	if got := KindsNoun(target.KindArgs{Refs: []target.KindRef{sts, sts}}); got != "StatefulSets" {
		t.Errorf("noun of two StatefulSets = %q", got)
	}
	if got := KindsNoun(target.KindArgs{Refs: []target.KindRef{sts, ds}}); got != "StatefulSets and DaemonSets" {
		t.Errorf("noun of both kinds = %q", got)
	}
	if got := KindsNoun(target.KindArgs{Kind: target.KindDaemonSet}); got != "DaemonSets" {
		t.Errorf("noun of ds -l = %q", got)
	}
	one := RefuseKinds("pause", target.KindArgs{Refs: []target.KindRef{sts}})
	two := RefuseKinds("pause", target.KindArgs{Refs: []target.KindRef{sts, ds}})
	bulk := RefuseKinds("resume", target.KindArgs{Kind: target.KindStatefulSet})
	if one == nil || two == nil || bulk == nil {
		t.Fatalf("pause/resume of StatefulSets and DaemonSets not refused: %v, %v, %v", one, two, bulk)
	}
	if two.Error() == one.Error() || len(two.Error()) <= len(one.Error()) {
		t.Errorf("two objects refused as one: %q vs %q", two, one)
	}
}
