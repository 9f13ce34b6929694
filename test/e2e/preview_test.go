//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// previewPlan runs `kubectl rollplan preview -o json` with args and decodes the RolloutPlan.
func previewPlan(t *testing.T, c *framework.Cluster, ns string, args ...string) *v1alpha1.RolloutPlan {
	t.Helper()
	res := c.Plugin(t, append([]string{"preview", "-n", ns, "-o", "json"}, args...)...)
	if res.ExitCode != 0 {
		t.Fatalf("preview %v: exit %d\nstderr: %s", args, res.ExitCode, res.Stderr)
	}
	var p v1alpha1.RolloutPlan
	if err := json.Unmarshal([]byte(res.Stdout), &p); err != nil {
		t.Fatalf("preview %v: decode: %v\n%s", args, err, res.Stdout)
	}
	return &p
}

// planWrites renders a plan's steps as the recorder renders writes.
func planWrites(p *v1alpha1.RolloutPlan) []string {
	out := []string{}
	for _, st := range p.Steps {
		op := framework.OpScale
		if st.Create {
			op = framework.OpCreate
		}
		out = append(out, framework.RSWrite{Op: op, Name: st.ReplicaSet, From: st.From, To: st.To}.String())
	}
	return out
}

func scaleWrites(ws []framework.RSWrite) []string {
	out := []string{}
	for _, w := range ws {
		if w.Op != framework.OpDelete {
			out = append(out, w.String())
		}
	}
	return out
}

// heldDeployment creates a Deployment whose template carries the hold label, lets its first
// rollout finish (releasing its pods), and returns it: every pod a later template change
// creates stays unready until released.
func heldDeployment(t *testing.T, c *framework.Cluster, ns string, b *framework.DeploymentBuilder) *appsv1.Deployment {
	t.Helper()
	d := c.CreateDeployment(t, ns, b.Hold())
	stop := c.AutoRelease(t, ns, "")
	d = c.WaitForRollout(t, ns, d.Name, time.Minute)
	stop()
	return d
}

// checkNewReplicaSet asserts that the ReplicaSet the controller made (or reused) for d's
// template has the name and revision the plan predicted.
func checkNewReplicaSet(t *testing.T, c *framework.Cluster, ns, name string, p *v1alpha1.RolloutPlan) {
	t.Helper()
	d, err := c.Client.AppsV1().Deployments(ns).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("%s rev %d", p.NewReplicaSet.Name, p.NewReplicaSet.Revision)
	got := "none"
	for _, rs := range c.ReplicaSetsOf(t, d) {
		if rs.Labels["pod-template-hash"] == "" {
			continue
		}
		if rev, _ := strconv.ParseInt(rs.Annotations["deployment.kubernetes.io/revision"], 10, 64); rev == p.NewReplicaSet.Revision {
			got = fmt.Sprintf("%s rev %d", rs.Name, rev)
		}
	}
	if got != want {
		t.Errorf("new replicaset: controller has %s, plan predicted %s", got, want)
	}
}

// TestPreviewMatchesController makes real changes on the local cluster with pods held
// unready and requires the controller's ReplicaSet writes to equal the plan made under
// --readiness never, and the new ReplicaSet's name and revision to be the predicted ones.
// Then it releases the pods and requires the end state of the plan made under batched.
func TestPreviewMatchesController(t *testing.T) {
	cases := []struct {
		name   string
		deploy *framework.DeploymentBuilder
		args   []string // change flags for preview
		apply  func(t *testing.T, c *framework.Cluster, ns, name string)
	}{
		{
			name:   "25%/25% image change",
			deploy: framework.NewDeployment("web").Replicas(10).RollingUpdate("25%", "25%"),
			args:   []string{"--image", "app=nginx:1.19"},
			apply:  setImage("nginx:1.19"),
		},
		{
			name:   "maxSurge 0 creates the new replicaset at 0",
			deploy: framework.NewDeployment("nosurge").Replicas(4).RollingUpdate("0", "1"),
			args:   []string{"--image", "app=nginx:1.19"},
			apply:  setImage("nginx:1.19"),
		},
		{
			name:   "maxSurge 1 maxUnavailable 0",
			deploy: framework.NewDeployment("surge1").Replicas(5).RollingUpdate("1", "0"),
			args:   []string{"--image", "app=nginx:1.19"},
			apply:  setImage("nginx:1.19"),
		},
		{
			name:   "Recreate",
			deploy: framework.NewDeployment("recreate").Replicas(5).Recreate(),
			args:   []string{"--image", "app=nginx:1.19"},
			apply:  setImage("nginx:1.19"),
		},
		{
			name:   "image change and scale-up at once",
			deploy: framework.NewDeployment("grow").Replicas(6).RollingUpdate("2", "1"),
			args:   []string{"--image", "app=nginx:1.19", "--replicas", "9"},
			apply: func(t *testing.T, c *framework.Cluster, ns, name string) {
				c.UpdateDeployment(t, ns, name, func(d *appsv1.Deployment) {
					d.Spec.Template.Spec.Containers[0].Image = "nginx:1.19"
					d.Spec.Replicas = ptr.To[int32](9)
				})
			},
		},
	}
	c := framework.Get(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ns := c.Namespace(t)
			d := heldDeployment(t, c, ns, tc.deploy)
			never := previewPlan(t, c, ns, append([]string{d.Name, "--readiness", "never"}, tc.args...)...)
			batched := previewPlan(t, c, ns, append([]string{d.Name}, tc.args...)...)

			rec := c.RecordReplicaSets(t, ns)
			tc.apply(t, c, ns, d.Name)
			if len(never.Steps) > 0 {
				rec.WaitFor(t, 30*time.Second, func(w []framework.RSWrite, _ []framework.ScalingEvent) bool {
					return len(scaleWrites(w)) >= len(never.Steps)
				})
			}
			writes := rec.WaitQuiet(t, 3*time.Second, 60*time.Second)
			t.Logf("plan under never: %v; controller: %v", planWrites(never), scaleWrites(writes))
			if diff := cmp.Diff(planWrites(never), scaleWrites(writes)); diff != "" {
				t.Errorf("controller writes with new pods held vs plan under never (-plan +controller):\n%s", diff)
			}
			checkNewReplicaSet(t, c, ns, d.Name, never)

			stop := c.AutoRelease(t, ns, "")
			d = c.WaitForRollout(t, ns, d.Name, 2*time.Minute)
			stop()
			got := map[string]int32{}
			for _, rs := range c.ReplicaSetsOf(t, d) {
				got[rs.Name] = ptr.Deref(rs.Spec.Replicas, 1)
			}
			want := map[string]int32{}
			for _, rs := range batched.ReplicaSets {
				want[rs.Name] = rs.FinalReplicas
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("end state vs plan under batched (-plan +cluster):\n%s", diff)
			}
			if batched.Outcome != "Complete" {
				t.Errorf("batched outcome %s, want Complete", batched.Outcome)
			}
		})
	}
}

func setImage(image string) func(t *testing.T, c *framework.Cluster, ns, name string) {
	return func(t *testing.T, c *framework.Cluster, ns, name string) {
		c.UpdateDeployment(t, ns, name, func(d *appsv1.Deployment) {
			d.Spec.Template.Spec.Containers[0].Image = image
		})
	}
}

// TestPreviewRollbackAndInFlight: a rollback that reuses an old ReplicaSet (renumbered), and
// a preview of a rollout already in flight (no change flag), then a scale-up in the middle
// of it (proportional scaling).
func TestPreviewRollbackAndInFlight(t *testing.T) {
	c := framework.Get(t)
	ns := c.Namespace(t)
	d := heldDeployment(t, c, ns, framework.NewDeployment("web").Replicas(6).RollingUpdate("2", "1"))
	for _, image := range []string{"nginx:1.19", "nginx:1.20"} {
		stop := c.AutoRelease(t, ns, "")
		c.UpdateDeployment(t, ns, d.Name, func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = image })
		d = c.WaitForRollout(t, ns, d.Name, time.Minute)
		stop()
	}

	// Rollback to revision 1 (nginx:1.18): the old ReplicaSet comes back as revision 4.
	never := previewPlan(t, c, ns, d.Name, "--to-revision", "1", "--readiness", "never")
	if !never.NewReplicaSet.Reused || never.NewReplicaSet.Revision != 4 {
		t.Errorf("rollback plan: reused=%v revision=%d, want reused revision 4", never.NewReplicaSet.Reused, never.NewReplicaSet.Revision)
	}
	rec := c.RecordReplicaSets(t, ns)
	if res := c.Kubectl(t, "rollout", "undo", "deployment/"+d.Name, "-n", ns, "--to-revision", "1"); res.ExitCode != 0 {
		t.Fatalf("kubectl rollout undo: exit %d: %s", res.ExitCode, res.Stderr)
	}
	rec.WaitFor(t, 30*time.Second, func(w []framework.RSWrite, _ []framework.ScalingEvent) bool {
		return len(scaleWrites(w)) >= len(never.Steps)
	})
	writes := rec.WaitQuiet(t, 3*time.Second, 60*time.Second)
	if diff := cmp.Diff(planWrites(never), scaleWrites(writes)); diff != "" {
		t.Errorf("rollback writes (-plan +controller):\n%s", diff)
	}
	checkNewReplicaSet(t, c, ns, d.Name, never)

	// In flight and stalled: with no change, nothing more happens under never...
	if p := previewPlan(t, c, ns, d.Name, "--readiness", "never"); len(p.Steps) != 0 || p.Outcome != "Stalled" {
		t.Errorf("in-flight plan under never: %d steps, outcome %s; want 0 steps, Stalled", len(p.Steps), p.Outcome)
	}
	// ...and a scale-up in the middle of the rollout is a scaling event: proportional scaling.
	scale := previewPlan(t, c, ns, d.Name, "--replicas", "12", "--readiness", "never")
	rec2 := c.RecordReplicaSets(t, ns)
	c.UpdateDeployment(t, ns, d.Name, func(d *appsv1.Deployment) { d.Spec.Replicas = ptr.To[int32](12) })
	rec2.WaitFor(t, 30*time.Second, func(w []framework.RSWrite, _ []framework.ScalingEvent) bool {
		return len(scaleWrites(w)) >= len(scale.Steps)
	})
	writes = rec2.WaitQuiet(t, 3*time.Second, 60*time.Second)
	t.Logf("scale-up plan: %v; controller: %v", planWrites(scale), scaleWrites(writes))
	if diff := cmp.Diff(planWrites(scale), scaleWrites(writes)); diff != "" {
		t.Errorf("scale-up mid-rollout writes (-plan +controller):\n%s", diff)
	}
	if len(scale.Steps) == 0 || scale.Steps[0].Decision != "ProportionalScaling" {
		t.Errorf("scale-up mid-rollout: first step %+v, want ProportionalScaling", scale.Steps)
	}
}
