package reloadoneshot

import (
	"errors"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/reload"
)

func runTarget(name string, a reload.Action, refusal error) *Target {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name}}
	return &Target{State: &cluster.State{Deployment: d}, Action: a, Decision: reload.Decision{Refusal: refusal}}
}

// TestAssessmentCounts: the writes, the client dry run's results and the refusal line of
// one run, as reload prints and asks them.
func TestAssessmentCounts(t *testing.T) {
	a := &Assessment{Targets: []*Target{
		runTarget("web", reload.ActionRestart, nil),
		runTarget("api", reload.ActionNone, nil),
		runTarget("db", reload.ActionAdopt, nil),
	}, Kinds: []*KindTarget{{Action: reload.ActionRestart}, {Action: reload.ActionNone}}}
	if a.Writes() != 3 || a.KindWrites() != 1 || CountWrites(a.Targets) != 2 {
		t.Errorf("writes %d, kinds %d, deployments %d; want 3, 1, 2", a.Writes(), a.KindWrites(), CountWrites(a.Targets))
	}
	if got := a.DryRunResults(); len(got) != 2 || got[0].Target.Name() != "shop/web" || got[1].Target.Name() != "shop/db" {
		t.Errorf("dry-run results %+v, want web then db", got)
	}
	if err := a.Refusal(); err != nil {
		t.Errorf("refusal %v, want none", err)
	}
	a.Targets = append(a.Targets, runTarget("cache", reload.ActionRefuse, errors.New("secret shop/tls is missing")))
	a.Kinds = append(a.Kinds, &KindTarget{Action: reload.ActionRefuse, Decision: reload.Decision{Refusal: errors.New("configmap shop/app is missing")}})
	err := a.Refusal()
	if err == nil || err.Error() != "secret shop/tls is missing; configmap shop/app is missing; nothing was written" || strings.Contains(err.Error(), "\n") {
		t.Errorf("refusal %v, want both on one line", err)
	}
}
