package reload

import "testing"

func TestChoose(t *testing.T) {
	first := Decide(webDeployment(), baseObjects())
	restarted := recorded(t, webDeployment(), baseObjects())
	current := Decide(restarted, baseObjects())
	stale := Decide(restarted, with(baseObjects(), cmObject("app", map[string]string{"A": "2"})))
	refused := Decide(restarted, without(with(baseObjects(), cmObject("app", map[string]string{"A": "2"})), Secret, "db"))
	possibly := Assessment{PossiblyStale: true, Since: t0}
	tests := []struct {
		name  string
		d     Decision
		a     Assessment
		adopt bool
		want  Action
	}{
		{"current: nothing", current, Assessment{}, false, ActionNone},
		{"stale: restart", stale, Assessment{}, false, ActionRestart},
		{"stale and refused: refuse", refused, Assessment{}, false, ActionRefuse},
		{"refused with --adopt: refuse", refused, Assessment{}, true, ActionRefuse},
		{"first sight without evidence: nothing", first, Assessment{}, false, ActionNone},
		{"first sight, possibly stale: restart", first, possibly, false, ActionRestart},
		{"first sight with --adopt: adopt, even possibly stale", first, possibly, true, ActionAdopt},
		{"recorded and stale with --adopt: adopt never restarts", stale, Assessment{}, true, ActionNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Choose(tt.d, tt.a, tt.adopt); got != tt.want {
				t.Errorf("Choose = %s, want %s (%s)", got, tt.want, tt.d)
			}
		})
	}
}
