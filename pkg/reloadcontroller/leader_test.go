package reloadcontroller

import (
	"testing"
	"time"

	"k8s.io/client-go/kubernetes/fake"
)

func leaderElection(t *testing.T, cs *fake.Clientset, id string) *LeaderElection {
	t.Helper()
	le, err := NewLeaderElection(cs, LeaderElectionConfig{
		LeaseDuration: 4 * time.Second, RenewDeadline: 3 * time.Second, RetryPeriod: 200 * time.Millisecond,
		ResourceName: DefaultLeaseName, ResourceNamespace: ns, Identity: id,
	})
	if err != nil {
		t.Fatal(err)
	}
	return le
}

func TestLeaderElectionOneRestartThenHandOff(t *testing.T) {
	cm := configMap("app", map[string]string{"a": "1"})
	cs := fake.NewClientset(cm, recorded(deployment("web", "app", ""), cm))
	leA := leaderElection(t, cs, "a")
	a := startOn(t, cs, Config{}, leA)
	a.eventually("a leads", a.c.Leading)
	leB := leaderElection(t, cs, "b")
	b := startOn(t, cs, Config{}, leB)
	if !leA.IsLeader() || leB.IsLeader() {
		t.Fatalf("leaders: a %v, b %v; want a alone", leA.IsLeader(), leB.IsLeader())
	}

	changed := configMap("app", map[string]string{"a": "2"})
	changed.ResourceVersion = "2"
	a.updateConfigMap(changed)
	a.eventually("a restart", func() bool { return len(patches(cs)) == 1 })
	settle(0)
	if p := patches(cs); len(p) != 1 {
		t.Fatalf("restarts %v with two watchers, want one", p)
	}
	if got := counterValue(t, b.metrics, "rollplan_reload_deployment_restarts_total"); got != 0 {
		t.Errorf("the follower restarted %v times", got)
	}

	a.stop() // releases the Lease (ReleaseOnCancel)
	if a.err != nil {
		t.Errorf("Run of the stopped leader: %v, want nil", a.err)
	}
	b.eventually("b leads", b.c.Leading)
	again := configMap("app", map[string]string{"a": "3"})
	again.ResourceVersion = "3"
	b.updateConfigMap(again)
	b.eventually("b's restart", func() bool {
		return counterValue(t, b.metrics, "rollplan_reload_deployment_restarts_total") == 1
	})
	settle(0)
	if p := patches(cs); len(p) != 2 {
		t.Errorf("restarts %v, want two (one per change)", p)
	}
}

func TestNewLeaderElectionRefusesBadDurations(t *testing.T) {
	cs := fake.NewClientset()
	_, err := NewLeaderElection(cs, LeaderElectionConfig{LeaseDuration: time.Second, RenewDeadline: 2 * time.Second,
		RetryPeriod: time.Second, ResourceName: "x", ResourceNamespace: "y"})
	if err == nil {
		t.Error("lease duration shorter than the renew deadline: no error")
	}
	if _, err := NewLeaderElection(cs, LeaderElectionConfig{LeaseDuration: DefaultLeaseDuration, RenewDeadline: DefaultRenewDeadline,
		RetryPeriod: DefaultRetryPeriod, ResourceName: "x"}); err == nil {
		t.Error("no lease namespace: no error")
	}
}
