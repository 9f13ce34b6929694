package reloadoneshot

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/reload"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// onceFixture: web reads key A of ConfigMap app (recorded at A=1, now A=2: a restart);
// api reads key B (unchanged); each with its one ReplicaSet. Without app (missing), both
// are refused.
func onceFixture(t *testing.T, withConfig bool) *fake.Clientset {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: testutil.DefaultNamespace, Name: "app", UID: "uid-app"},
		Data: map[string]string{"A": "1", "B": "1"}}
	objects := map[reload.ObjectKey]reload.Object{
		{Namespace: testutil.DefaultNamespace, Kind: reload.ConfigMap, Name: "app"}: reload.ConfigMapObject(cm),
	}
	var objs []runtime.Object
	for name, key := range map[string]string{"web": "A", "api": "B"} {
		d := testutil.Deployment(name).Replicas(3).ResourceVersion("10").Status(3, 3, 3, 3).Containers(corev1.Container{
			Name: "app", Image: "nginx:1.18", Env: []corev1.EnvVar{{Name: "K", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
				LocalObjectReference: corev1.LocalObjectReference{Name: "app"}, Key: key}}}}}).Build()
		d = reload.Restarted(d, reload.Decide(d, objects).Checksums)
		objs = append(objs, d, testutil.ReplicaSetFor(d).OwnedBy(d).Created(1).Replicas(3).Revision(1).Build())
	}
	cm.Data["A"] = "2"
	if withConfig {
		objs = append(objs, cm)
	}
	return fake.NewClientset(objs...)
}

// recorder is a Report that records each call as a word, and answers Confirm with answer
// (or err).
type recorder struct {
	calls   []string
	answer  bool
	err     error
	results []Result
}

func (r *recorder) Assessed(_ *Config, a *Assessment) error {
	r.calls = append(r.calls, fmt.Sprintf("assessed:%d", len(a.Targets)))
	return nil
}
func (r *recorder) Nothing() { r.calls = append(r.calls, "nothing") }
func (r *recorder) Confirm(n int, kinds bool) (bool, error) {
	r.calls = append(r.calls, fmt.Sprintf("confirm:%d:%v", n, kinds))
	return r.answer, r.err
}
func (r *recorder) Declined() { r.calls = append(r.calls, "declined") }
func (r *recorder) Restarted(results []Result) {
	r.results = results
	r.calls = append(r.calls, fmt.Sprintf("restarted:%d", len(results)))
}
func (r *recorder) KindsWritten(results []KindResult) {
	r.calls = append(r.calls, fmt.Sprintf("kinds:%d", len(results)))
}

func writesOf(c *fake.Clientset) []string {
	var out []string
	for _, a := range c.Actions() {
		if v := a.GetVerb(); v != "get" && v != "list" && v != "watch" {
			out = append(out, v+" "+a.GetResource().Resource)
		}
	}
	return out
}

func onceConfig(names ...string) *Config {
	return &Config{Selection: &target.Selection{Args: names, Namespace: testutil.DefaultNamespace, Many: true},
		Checks: "none", MaxConcurrent: 1, FieldManager: "rollplan-reload"}
}

// TestRunOrder: Config.Run shows, asks and writes in order, and writes nothing unless a
// confirmed (or server dry) run: a client dry run asks nothing and reports web's restart;
// a declined run and a run that cannot ask write nothing; with nothing changed, Nothing; a
// missing ConfigMap refuses before any question.
func TestRunOrder(t *testing.T) {
	cannotAsk := errors.New("cannot ask")
	for _, tc := range []struct {
		name    string
		names   []string
		dryRun  bool
		missing bool
		answer  bool
		err     error
		want    string
		wantErr string
	}{
		{name: "client dry run", names: []string{"deploy/web", "deploy/api"}, dryRun: true, want: "assessed:2 restarted:1 kinds:0"},
		{name: "declined", names: []string{"deploy/web"}, want: "assessed:1 confirm:1:false declined"},
		{name: "cannot ask", names: []string{"deploy/web"}, err: cannotAsk, want: "assessed:1 confirm:1:false", wantErr: "cannot ask"},
		{name: "nothing changed", names: []string{"deploy/api"}, want: "assessed:1 nothing"},
		{name: "refused", names: []string{"deploy/web"}, missing: true, want: "assessed:1", wantErr: "nothing was written"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := onceFixture(t, !tc.missing)
			c := onceConfig(tc.names...)
			c.ClientDryRun = tc.dryRun
			r := &recorder{answer: tc.answer, err: tc.err}
			err := c.Run(t.Context(), client, r)
			if got := strings.Join(r.calls, " "); got != tc.want {
				t.Errorf("calls %q, want %q", got, tc.want)
			}
			if (tc.wantErr == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("error %v, want %q", err, tc.wantErr)
			}
			if w := writesOf(client); len(w) != 0 {
				t.Errorf("wrote %v, want nothing", w)
			}
			if tc.dryRun && (len(r.results) != 1 || r.results[0].Target.Name() != "default/web" || r.results[0].Err != nil) {
				t.Errorf("dry-run results %+v, want web's restart", r.results)
			}
		})
	}
}

// TestFailures: the failed writes, Deployments' first, in one aggregate; none: nil.
func TestFailures(t *testing.T) {
	if err := Failures([]Result{{}}, []KindResult{{}}); err != nil {
		t.Errorf("no failure: %v", err)
	}
	err := Failures([]Result{{Err: errors.New("web timed out")}, {}}, []KindResult{{Err: errors.New("db refused")}})
	if err == nil || err.Error() != "[web timed out, db refused]" {
		t.Errorf("Failures = %v, want both, web first", err)
	}
}

// TestRunContexts: two contexts read (web restarts in both; each has the namespace, which
// --contexts requires), one whose Source could not be made: the targets flattened with their context, the failed one named with its error.
func TestRunContexts(t *testing.T) {
	live := func(name string) *pipeline.Live {
		c := onceFixture(t, true)
		if err := c.Tracker().Add(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: testutil.DefaultNamespace}}); err != nil {
			t.Fatal(err)
		}
		return pipeline.NewLive(name, testutil.DefaultNamespace, func() (kubernetes.Interface, error) { return c, nil })
	}
	names := []string{"east", "down", "west"}
	res, err := onceConfig("deploy/web").RunContexts(t.Context(), names,
		[]*pipeline.Live{live("east"), nil, live("west")}, []error{nil, errors.New("no such cluster"), nil})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Targets) != 2 || strings.Join(res.Contexts, ",") != "east,west" || res.Targets[0].Action != reload.ActionRestart {
		t.Errorf("targets %d in %v, want web restarting in east and west", len(res.Targets), res.Contexts)
	}
	if strings.Join(res.Failed, ",") != "down" || res.Errs[0].Error() != "no such cluster" || len(res.Names) != 3 {
		t.Errorf("failed %v %v, want down: no such cluster", res.Failed, res.Errs)
	}
}
