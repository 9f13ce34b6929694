package reloadoneshot

import (
	"errors"
	"testing"

	"github.com/rollplan/kubectl-rollplan/pkg/reload"
)

func TestChooseKind(t *testing.T) {
	recorded := []reload.RefStatus{{State: reload.Current}}
	unrecorded := []reload.RefStatus{{State: reload.Unrecorded}}
	for _, tc := range []struct {
		name  string
		d     reload.Decision
		adopt bool
		want  reload.Action
	}{
		{"a missing reference refuses, even at first sight", reload.Decision{Refusal: errors.New("missing"), Refs: unrecorded}, false, reload.ActionRefuse},
		{"first sight adopts", reload.Decision{Refs: unrecorded}, false, reload.ActionAdopt},
		{"first sight adopts with --adopt", reload.Decision{Refs: unrecorded}, true, reload.ActionAdopt},
		{"a changed checksum restarts", reload.Decision{Stale: true, Refs: recorded}, false, reload.ActionRestart},
		{"--adopt never restarts", reload.Decision{Stale: true, Refs: recorded}, true, reload.ActionNone},
		{"current: nothing", reload.Decision{Refs: recorded}, false, reload.ActionNone},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := chooseKind(tc.d, tc.adopt); got != tc.want {
				t.Errorf("chooseKind = %s, want %s", got, tc.want)
			}
		})
	}
}
