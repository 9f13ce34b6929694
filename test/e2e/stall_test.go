//go:build e2e

package e2e

import (
	"os"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"sigs.k8s.io/yaml"

	"github.com/rollplan/kubectl-rollplan/pkg/drive"
	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// failLabel makes kwok's pod-fail stage (hack/cluster/kwok-stages.yaml) give a pod the
// container state its value names.
const failLabel = "rollplan.test/fail"

// failFastAfter is --fail-fast-after in these tests; slack what the exit may take beyond it
// (the pod's creation and kwok's stage, the status's reads every 2 s, the process).
const (
	failFastAfter = 5 * time.Second
	slack         = 6 * time.Second
)

// stallRollout creates web (2 replicas, 25%/25%: one surge pod, none unavailable) rolled
// out, then changes its template with mutate; it returns the namespace and when the change
// was made.
func stallRollout(t *testing.T, c *framework.Cluster, mutate func(*corev1.PodTemplateSpec)) (string, time.Time) {
	t.Helper()
	ns := c.Namespace(t)
	c.CreateDeployment(t, ns, framework.NewDeployment("web").Replicas(2).RollingUpdate("25%", "25%"))
	c.WaitForRollout(t, ns, "web", time.Minute)
	began := time.Now()
	c.UpdateDeployment(t, ns, "web", func(d *appsv1.Deployment) { mutate(&d.Spec.Template) })
	return ns, began
}

func withFail(reason string) func(*corev1.PodTemplateSpec) {
	return func(tmpl *corev1.PodTemplateSpec) {
		tmpl.Labels[failLabel] = reason
		tmpl.Spec.Containers[0].Image = "nginx:does-not-exist"
	}
}

// TestStallStatusFailFast: the new pod in ImagePullBackOff (or CrashLoopBackOff, with its
// restart count) through kwok's stage; `status --watch --fail-fast --fail-fast-after 5s`
// names the reason with its pod count and exits 6 within 5s plus a few seconds of the
// change, long before progressDeadlineSeconds (600 s).
func TestStallStatusFailFast(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ reason, want string }{
		{"ImagePullBackOff", `1 pod ImagePullBackOff: Back-off pulling image "nginx:does-not-exist"`},
		{"CrashLoopBackOff", "1 pod CrashLoopBackOff (3 restarts): back-off 40s restarting failed container=app"},
	} {
		t.Run(tc.reason, func(t *testing.T) {
			t.Parallel()
			c := framework.Get(t)
			ns, began := stallRollout(t, c, withFail(tc.reason))
			res := c.Plugin(t, "status", "deploy/web", "-n", ns, "--watch", "--timeout", "50s", "--fail-fast", "--fail-fast-after", failFastAfter.String())
			took := time.Since(began)
			t.Logf("status --fail-fast: exit %d after %s\nstdout:\n%s\nstderr:\n%s", res.ExitCode, took.Round(100*time.Millisecond), res.Stdout, res.Stderr)
			if res.ExitCode != 6 || !strings.Contains(res.Stderr, `error: deployment "web" does not progress`) || !strings.Contains(res.Stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q; want 6 naming %q", res.ExitCode, res.Stderr, tc.want)
			}
			if took > failFastAfter+slack {
				t.Errorf("exit after %s, want within %s", took, failFastAfter+slack)
			}
			if !strings.Contains(res.Stdout, "NOT PROGRESSING: 1 pod "+tc.reason) {
				t.Errorf("no status line names the reason:\n%s", res.Stdout)
			}
		})
	}
}

// TestStallDriveFailFast: drive to a template whose pod cannot pull its image holds (exit
// 4) with --fail-fast-after 5s, naming the reason in its progress and in the held reason
// it records, long before its progress timeout (progressDeadlineSeconds, 600 s).
func TestStallDriveFailFast(t *testing.T) {
	t.Parallel()
	s := newDriveSetup(t, 2, "25%", "25%")
	manifest := s.manifest(t, "nginx:does-not-exist", false)
	labelManifest(t, manifest, failLabel, "ImagePullBackOff")
	began := time.Now()
	res := s.plugin(t, "drive", "deploy/web", "-f", manifest, "--yes", "--fail-fast", "--fail-fast-after", failFastAfter.String())
	took := time.Since(began)
	t.Logf("drive --fail-fast: exit %d after %s\nstderr:\n%s", res.ExitCode, took.Round(100*time.Millisecond), res.Stderr)
	if res.ExitCode != 4 {
		t.Fatalf("drive: exit %d, want 4 (held)\nstdout:\n%s", res.ExitCode, res.Stdout)
	}
	for _, want := range []string{"--fail-fast: pods of ReplicaSet", "not progressing:", `1 pod ImagePullBackOff: Back-off pulling image "nginx:does-not-exist"`} {
		if !strings.Contains(res.Stderr, want) {
			t.Errorf("stderr lacks %q", want)
		}
	}
	if took > failFastAfter+slack+5*time.Second { // + the takeover and the ReplicaSet's creation
		t.Errorf("held after %s, want within %s", took, failFastAfter+slack+5*time.Second)
	}
	d := s.waitState(t, 10*time.Second, func(st *drive.State, _ *appsv1.Deployment) bool { return st.Holder == "" })
	if st, _ := drive.ReadState(d); !strings.HasSuffix(st.HeldReason, "1 pod ImagePullBackOff") {
		t.Errorf("held reason %q, want it to end with the reason", st.HeldReason)
	}
}

// TestStallUnschedulable: a nodeSelector no node matches; the real scheduler leaves the
// surge pod Pending (PodScheduled=False, Unschedulable) and status names it with the
// scheduler's message, then --fail-fast exits 6.
func TestStallUnschedulable(t *testing.T) {
	t.Parallel()
	c := framework.Get(t)
	ns, began := stallRollout(t, c, func(tmpl *corev1.PodTemplateSpec) {
		tmpl.Spec.NodeSelector = map[string]string{"rollplan.test/pool": "none"}
	})
	res := c.Plugin(t, "status", "deploy/web", "-n", ns, "--watch", "--timeout", "50s", "--fail-fast", "--fail-fast-after", "3s")
	took := time.Since(began)
	t.Logf("status --fail-fast: exit %d after %s\nstdout:\n%s\nstderr:\n%s", res.ExitCode, took.Round(100*time.Millisecond), res.Stdout, res.Stderr)
	want := "1 pod Unschedulable: 0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector"
	if res.ExitCode != 6 || !strings.Contains(res.Stderr, want) {
		t.Fatalf("exit %d; want 6 naming %q", res.ExitCode, want)
	}
	if took > 3*time.Second+slack {
		t.Errorf("exit after %s, want within %s", took, 3*time.Second+slack)
	}
	once := c.Plugin(t, "status", "deploy/web", "-n", ns)
	if !strings.Contains(once.Stdout, "Not progressing:") || !strings.Contains(once.Stdout, "Unschedulable") {
		t.Errorf("status block without the reason:\n%s", once.Stdout)
	}
}

// labelManifest adds the pod template label key=value to the Deployment manifest at path.
func labelManifest(t *testing.T, path, key, value string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var d appsv1.Deployment
	if err := yaml.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	d.Spec.Template.Labels[key] = value
	if b, err = yaml.Marshal(&d); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestStallQuota: a ResourceQuota of 2 pods with 2 replicas and maxUnavailable 0: the
// ReplicaSet controller's create of the surge pod is refused by quota admission, and status
// names FailedCreate with the API server's message (the ReplicaSet's ReplicaFailure
// condition), then --fail-fast exits 6.
func TestStallQuota(t *testing.T) {
	t.Parallel()
	c := framework.Get(t)
	ns := c.Namespace(t)
	webUnderPodsQuota(t, c, ns, "1", "0")
	began := time.Now()
	c.UpdateDeployment(t, ns, "web", func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "nginx:1.19" })
	res := c.Plugin(t, "status", "deploy/web", "-n", ns, "--watch", "--timeout", "50s", "--fail-fast", "--fail-fast-after", "3s")
	took := time.Since(began)
	t.Logf("status --fail-fast: exit %d after %s\nstdout:\n%s\nstderr:\n%s", res.ExitCode, took.Round(100*time.Millisecond), res.Stdout, res.Stderr)
	want := "FailedCreate (1 pod not created): pods \"web-"
	if res.ExitCode != 6 || !strings.Contains(res.Stderr, want) || !strings.Contains(res.Stderr, "exceeded quota: pods") {
		t.Fatalf("exit %d; want 6 naming %q and the quota", res.ExitCode, want)
	}
	if took > 3*time.Second+slack {
		t.Errorf("exit after %s, want within %s", took, 3*time.Second+slack)
	}
}
