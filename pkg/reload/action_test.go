package reload

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

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

func TestPausedRefusal(t *testing.T) {
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}}
	if err := PausedRefusal(dep); err != nil {
		t.Fatalf("PausedRefusal(running) = %v, want nil", err)
	}
	if err := PausedRefusal(nil); err != nil {
		t.Fatalf("PausedRefusal(nil) = %v, want nil", err)
	}
	dep.Spec.Paused = true
	err := PausedRefusal(dep)
	want := "restart of deployment shop/web refused: it is paused, so the controller would not roll it out: run `kubectl rollplan resume deploy/web` first"
	if err == nil || err.Error() != want {
		t.Fatalf("PausedRefusal(paused) = %v, want %q", err, want)
	}
}
