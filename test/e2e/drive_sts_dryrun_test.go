//go:build e2e

package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/drive/objlease"
	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// TestDriveStsDryRunStatus (issue 21): drive sts/NAME --dry-run (client, and server with
// -o json) prints the partition walk and leaves the StatefulSet's resourceVersion as it
// was; a walk paused at a --pause-after ordinal shows in drive status sts/NAME, and so
// does a lease (holder and expiry).
func TestDriveStsDryRunStatus(t *testing.T) {
	t.Parallel()
	c := framework.Get(t)
	ns := c.Namespace(t)
	createSettledSts(t, c, ns, "db")
	rv := func() string {
		s, err := c.Client.AppsV1().StatefulSets(ns).Get(t.Context(), "db", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return s.ResourceVersion
	}
	before := rv()
	res := c.Plugin(t, "drive", "sts/db", "-n", ns, "--image", "app=nginx:1.19", "--step", "2", "--dry-run")
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "step 1: partition 3 -> 1 (replacing ordinals 1-2)") ||
		!strings.Contains(res.Stdout, "step 2: partition 1 -> 0") || !strings.Contains(res.Stdout, "(dry run: nothing changed)") {
		t.Fatalf("drive --dry-run: exit %d\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	res = c.Plugin(t, "drive", "sts/db", "-n", ns, "--image", "app=nginx:1.19", "--step", "1", "--pause-after", "2", "--dry-run=server", "-o", "json")
	var plan v1alpha1.StatefulSetDrive
	if res.ExitCode != 0 || json.Unmarshal([]byte(res.Stdout), &plan) != nil {
		t.Fatalf("drive --dry-run=server -o json: exit %d\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	if plan.Kind != "StatefulSetDrive" || plan.DryRun != "server" || len(plan.Steps) != 3 || !plan.Steps[0].PauseAfter || plan.Steps[2].To != 0 {
		t.Errorf("plan %+v", plan)
	}
	if after := rv(); after != before {
		t.Fatalf("a dry run changed sts/db: resourceVersion %s -> %s", before, after)
	}

	// A walk paused after ordinal 2: exit 4, -o json's result says Paused at 2.
	res = c.Plugin(t, "drive", "sts/db", "-n", ns, "--image", "app=nginx:1.19", "--step", "1", "--pause-after", "2", "--timeout", "30s", "-o", "json")
	var ran v1alpha1.StatefulSetDrive
	if res.ExitCode != 4 || json.Unmarshal([]byte(res.Stdout), &ran) != nil || ran.Result == nil || ran.Result.Outcome != "Paused" || ran.Result.Partition != 2 {
		t.Fatalf("paused drive -o json: exit %d\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	res = c.Plugin(t, "drive", "status", "sts/db", "-n", ns)
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "none running (no lease)") || !strings.Contains(res.Stdout, "2 of 3 replicas, midway") {
		t.Fatalf("drive status sts/db after the pause: exit %d\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}

	// A lease of another driver (as a running drive writes it): drive status names it.
	exp := time.Now().Add(time.Minute).UTC().Truncate(time.Second)
	val, _ := json.Marshal(map[string]string{"holder": "e2e@host pid 1/ab", "expires": exp.Format(time.RFC3339)})
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{objlease.Annotation: string(val)}}})
	if _, err := c.Client.AppsV1().StatefulSets(ns).Patch(t.Context(), "db", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	res = c.Plugin(t, "drive", "status", "sts/db", "-n", ns, "-o", "json")
	var st v1alpha1.DriveStatus
	if res.ExitCode != 0 || json.Unmarshal([]byte(res.Stdout), &st) != nil || st.StatefulSet == nil {
		t.Fatalf("drive status -o json: exit %d\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	if !st.Driving || !st.Held || st.StatefulSet.Holder != "e2e@host pid 1/ab" || !st.StatefulSet.LeaseExpires.Equal(exp) || st.StatefulSet.Partition != 2 {
		t.Errorf("drive status: %+v, statefulSet %+v", st, st.StatefulSet)
	}
}
