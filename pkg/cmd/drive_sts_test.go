package cmd

import (
	"strings"
	"testing"

	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

func TestKindArgs(t *testing.T) {
	ref, ok, err := kindArgs([]string{"sts/db"}, "drive")
	if !ok || err != nil || ref != (target.KindRef{Kind: target.KindStatefulSet, Name: "db"}) {
		t.Errorf("sts/db: %v %v %v", ref, ok, err)
	}
	if _, ok, err := kindArgs([]string{"web"}, "drive"); ok || err != nil {
		t.Errorf("web: ok %v err %v, want a Deployment (not ok, no error)", ok, err)
	}
	for _, args := range [][]string{{"ds/agent"}, {"sts/a", "sts/b"}} {
		_, ok, err := kindArgs(args, "drive")
		if !ok || err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: ok %v err %v, want a one-line refusal", args, ok, err)
		}
	}
	if _, _, err := kindArgs([]string{"ds/agent"}, "drive"); !strings.Contains(err.Error(), "DaemonSet drive is out of scope") {
		t.Errorf("ds/agent: %v", err)
	}
}
