package driverun

import (
	"strings"
	"testing"
	"time"

	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

func TestStsArg(t *testing.T) {
	ref, ok, err := StsArg([]string{"sts/db"}, "drive")
	if !ok || err != nil || ref != (target.KindRef{Kind: target.KindStatefulSet, Name: "db"}) {
		t.Errorf("sts/db: %v %v %v", ref, ok, err)
	}
	if _, ok, err := StsArg([]string{"web"}, "drive"); ok || err != nil {
		t.Errorf("web: ok %v err %v, want a Deployment (not ok, no error)", ok, err)
	}
	for _, args := range [][]string{{"ds/agent"}, {"sts/a", "sts/b"}} {
		_, ok, err := StsArg(args, "drive")
		if !ok || err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: ok %v err %v, want a one-line refusal", args, ok, err)
		}
	}
	if _, _, err := StsArg([]string{"ds/agent"}, "drive"); !strings.Contains(err.Error(), "DaemonSet drive is out of scope") {
		t.Errorf("ds/agent: %v", err)
	}
}

// TestStsWalk: --step takes N (1 or more) or P%; the other flags are checked with it.
func TestStsWalk(t *testing.T) {
	for _, tc := range []struct {
		step           string
		timeout, every time.Duration
		lease          time.Duration
		wantErr        string
	}{
		{"2", time.Minute, 0, 30 * time.Second, ""},
		{"25%", 0, time.Second, 30 * time.Second, ""},
		{"0", 0, 0, 30 * time.Second, "--step=0: give N (1 or more) or a percentage P% of replicas"},
		{"-1", 0, 0, 30 * time.Second, "--step=-1: give N"},
		{"x", 0, 0, 30 * time.Second, "--step=x: give N"},
		{"1", -time.Second, 0, 30 * time.Second, "--interval and --timeout must not be negative"},
		{"1", 0, 0, time.Second, "--lease-duration=1s: must be 3s or more"},
	} {
		w, err := StsWalk(tc.step, []int32{4}, tc.timeout, tc.every, tc.lease)
		if tc.wantErr == "" {
			if err != nil || w.Step.String() != tc.step || w.ProgressDeadline != tc.timeout || len(w.PauseAfter) != 1 {
				t.Errorf("step %q: %+v, %v", tc.step, w, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("step %q: error %v, want %q", tc.step, err, tc.wantErr)
		}
	}
}
