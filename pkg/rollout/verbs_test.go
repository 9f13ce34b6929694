package rollout

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/resource"
	"k8s.io/kubectl/pkg/cmd/set"
	"k8s.io/kubectl/pkg/polymorphichelpers"
	"k8s.io/kubectl/pkg/scheme"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/change"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// kubectlPatch runs kubectl's own CalculatePatch with fn (ObjectPauserFn, ObjectResumerFn or
// ObjectRestarterFn, v0.36.3) on a copy of d, as RunPause/RunResume/RunRestart do.
func kubectlPatch(d *appsv1.Deployment, fn func(runtime.Object) ([]byte, error)) *set.Patch {
	p := &set.Patch{Info: &resource.Info{Object: d.DeepCopy(), Name: d.Name, Namespace: d.Namespace}}
	set.CalculatePatch(p, scheme.DefaultJSONEncoder(), set.PatchFn(fn))
	return p
}

func TestMergePatchesMatchKubectl(t *testing.T) {
	d, rss := webHistory(10)
	paused := d.DeepCopy()
	paused.Spec.Paused = true

	t.Run("pause", func(t *testing.T) {
		k := kubectlPatch(d, polymorphichelpers.ObjectPauserFn)
		a, err := PreviewPause(d, rss)
		if err != nil || k.Err != nil {
			t.Fatalf("rollplan: %v; kubectl: %v", err, k.Err)
		}
		if string(a.Patch.Kubectl) != string(k.Patch) || string(k.Patch) != `{"spec":{"paused":true}}` {
			t.Errorf("patch: kubectl %s, rollplan %s", k.Patch, a.Patch.Kubectl)
		}
		if want := `{"metadata":{"resourceVersion":"1234"},"spec":{"paused":true}}`; string(a.Patch.Guarded) != want {
			t.Errorf("guarded patch %s, want %s", a.Patch.Guarded, want)
		}
	})
	t.Run("resume", func(t *testing.T) {
		k := kubectlPatch(paused, polymorphichelpers.ObjectResumerFn)
		a, err := PreviewResume(paused, rss, planner.ReadinessBatched)
		if err != nil || k.Err != nil {
			t.Fatalf("rollplan: %v; kubectl: %v", err, k.Err)
		}
		if string(a.Patch.Kubectl) != string(k.Patch) || string(k.Patch) != `{"spec":{"paused":null}}` {
			t.Errorf("patch: kubectl %s, rollplan %s", k.Patch, a.Patch.Kubectl)
		}
	})
	t.Run("restart", func(t *testing.T) {
		k := kubectlPatch(d, polymorphichelpers.ObjectRestarterFn)
		if k.Err != nil {
			t.Fatal(k.Err)
		}
		// kubectl reads the clock itself: restart at the time it wrote.
		var parsed struct {
			Spec struct {
				Template struct {
					Metadata struct {
						Annotations map[string]string `json:"annotations"`
					} `json:"metadata"`
				} `json:"template"`
			} `json:"spec"`
		}
		if err := json.Unmarshal(k.Patch, &parsed); err != nil {
			t.Fatal(err)
		}
		at, err := time.Parse(time.RFC3339, parsed.Spec.Template.Metadata.Annotations[change.RestartedAtAnnotation])
		if err != nil {
			t.Fatalf("kubectl's patch %s: %v", k.Patch, err)
		}
		a, err := PreviewRestart(d, rss, at, planner.ReadinessBatched)
		if err != nil {
			t.Fatal(err)
		}
		if string(a.Patch.Kubectl) != string(k.Patch) {
			t.Errorf("patch: kubectl %s, rollplan %s", k.Patch, a.Patch.Kubectl)
		}
	})
	t.Run("refusals in kubectl's words", func(t *testing.T) {
		for _, tc := range []struct {
			name string
			fn   func(runtime.Object) ([]byte, error)
			d    *appsv1.Deployment
			run  func() error
		}{
			{"pause a paused Deployment", polymorphichelpers.ObjectPauserFn, paused, func() error { _, err := PreviewPause(paused, rss); return err }},
			{"resume one that is not paused", polymorphichelpers.ObjectResumerFn, d, func() error { _, err := PreviewResume(d, rss, ""); return err }},
			{"restart a paused one", polymorphichelpers.ObjectRestarterFn, paused, func() error {
				_, err := PreviewRestart(paused, rss, time.Unix(0, 0), "")
				return err
			}},
		} {
			k := kubectlPatch(tc.d, tc.fn)
			err := tc.run()
			if k.Err == nil || err == nil {
				t.Fatalf("%s: kubectl %v, rollplan %v; want both to fail", tc.name, k.Err, err)
			}
			// RunPause & co. print fmt.Errorf("error: %s %q %v", "deployments.apps", name, err);
			// rollplan's error printer adds the "error: ".
			want := "deployments.apps \"web\" " + k.Err.Error()
			if err.Error() != want || !errors.Is(err, ErrNothingToDo) {
				t.Errorf("%s: %q, want %q (and ErrNothingToDo)", tc.name, err, want)
			}
		}
	})
}

func TestPreviewPauseMidRollout(t *testing.T) {
	// 10 replicas, 25%/25%: the rollout to nginx:1.20 stands at new 10 (6 available), old 2:
	// 12 pods, below replicas+maxSurge = 13. The paused controller's proportional scaling
	// gives the one missing pod to the largest ReplicaSet, the new one.
	d, _ := webHistory(10)
	d.Spec.Replicas = ptr.To(int32(10))
	old := testutilRS(d, "nginx:1.19", 1, 2, 2, "10", "13")
	cur := testutilRS(d, "nginx:1.20", 2, 10, 6, "10", "13")
	a, err := PreviewPause(d, []*appsv1.ReplicaSet{old, cur})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, st := range a.Plan.Steps {
		got = append(got, a.Plan.ReplicaSets[st.ReplicaSet].Name+" "+itoa(st.From)+"->"+itoa(st.To)+" "+string(st.Decision))
	}
	want := []string{cur.Name + " 10->11 " + string(planner.DecisionProportional)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("paused controller's writes (-want +got):\n%s", diff)
	}
	if a.Plan.Outcome != planner.OutcomePaused || !a.Result.Spec.Paused || a.Live.Spec.Paused {
		t.Errorf("outcome %s, result paused %v, live paused %v", a.Plan.Outcome, a.Result.Spec.Paused, a.Live.Spec.Paused)
	}
	if !strings.Contains(string(a.Patch.Kubectl), `"paused":true`) {
		t.Errorf("patch %s", a.Patch.Kubectl)
	}
}
