package cmd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
)

const stateFile = "../../examples/state.yaml"

// runRoot runs "kubectl rollplan args..." in process and returns stdout, stderr (as main
// prints errors) and the exit code.
func runRoot(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	streams := genericiooptions.IOStreams{In: strings.NewReader(stdin), Out: &out, ErrOut: &errOut}
	root := NewCmdRollplan(streams)
	root.SetArgs(args)
	root.SetOut(&out)
	root.SetErr(&errOut)
	code := ExitOK
	if err := root.Execute(); err != nil {
		code = HandleError(&errOut, err)
	}
	return out.String(), errOut.String(), code
}

func TestPreviewGolden(t *testing.T) {
	cases := []struct {
		name string
		args []string
	}{
		{"image-batched", []string{"--image", "nginx=nginx:1.27"}},
		{"image-never", []string{"--image", "nginx=nginx:1.27", "--readiness", "never"}},
		{"image-instant", []string{"--image", "nginx=nginx:1.27", "--readiness", "instant"}},
		{"rollback-to-revision-1", []string{"--to-revision", "1"}},
		{"scale-only", []string{"--replicas", "20"}},
		{"no-change", nil},
		{"max-steps-elides", []string{"--image", "nginx=nginx:1.27", "--replicas", "40", "--max-steps", "4"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"preview", "deploy/web", "--state-file", stateFile}, tc.args...)
			out, errOut, code := runRoot(t, "", args...)
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			testutil.Golden(t, "preview-"+tc.name, []byte(out))
		})
	}
}

func TestPreviewJSON(t *testing.T) {
	out, errOut, code := runRoot(t, "", "preview", "web", "--state-file", stateFile, "--image", "nginx=nginx:1.27", "-o", "json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	testutil.Golden(t, "preview-image.json", []byte(out))
	var p v1alpha1.RolloutPlan
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	if p.Kind != "RolloutPlan" || p.APIVersion != "rollplan.dev/v1alpha1" || p.Outcome != "Complete" || len(p.Steps) != 6 {
		t.Errorf("plan: kind %q apiVersion %q outcome %q steps %d; want RolloutPlan rollplan.dev/v1alpha1 Complete 6", p.Kind, p.APIVersion, p.Outcome, len(p.Steps))
	}
	if len(p.Cleanup) != 1 || p.Cleanup[0].Revision != 1 {
		t.Errorf("cleanup %+v, want revision 1 only (revisionHistoryLimit 2, three old ReplicaSets)", p.Cleanup)
	}
	jp, _, code := runRoot(t, "", "preview", "web", "--state-file", stateFile, "--image", "nginx=nginx:1.27", "-o", "jsonpath={.newReplicaSet.name} {.newReplicaSet.revision}")
	if code != ExitOK || jp != p.NewReplicaSet.Name+" 4" {
		t.Errorf("-o jsonpath: %q (exit %d), want %q", jp, code, p.NewReplicaSet.Name+" 4")
	}
	y, _, code := runRoot(t, "", "preview", "web", "--state-file", stateFile, "--image", "nginx=nginx:1.27", "-o", "yaml")
	if code != ExitOK || !strings.Contains(y, "kind: RolloutPlan\n") || !strings.Contains(y, "outcome: Complete\n") {
		t.Errorf("-o yaml (exit %d):\n%s", code, y)
	}
}

func TestPreviewFailOnStall(t *testing.T) {
	_, errOut, code := runRoot(t, "", "preview", "web", "--state-file", stateFile, "--image", "nginx=nginx:1.27", "--readiness", "never", "--fail-on-stall", "-o", "json")
	if code != ExitStalled || errOut != "" {
		t.Errorf("exit %d, stderr %q; want exit %d and no message", code, errOut, ExitStalled)
	}
	_, _, code = runRoot(t, "", "preview", "web", "--state-file", stateFile, "--image", "nginx=nginx:1.27", "--fail-on-stall")
	if code != ExitOK {
		t.Errorf("a complete plan with --fail-on-stall: exit %d, want 0", code)
	}
}

func TestPreviewBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	malformed := write("bad.yaml", "apiVersion: v1\nkind: List\nitems: [\n")
	badSurge := write("surge.yaml", `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 10
  selector: {matchLabels: {app: web}}
  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: "-1", maxUnavailable: "25%"}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: nginx, image: nginx:1.27}]}
`)
	cases := []struct {
		name string
		args []string
		want string // in the one-line message
	}{
		{"unknown deployment", []string{"preview", "nope", "--state-file", stateFile}, `"nope"`},
		{"not a deployment", []string{"preview", "rs/web-777f9fc55f", "--state-file", stateFile}, "replicasets"},
		{"no name", []string{"preview", "--state-file", stateFile}, "NAME"},
		{"malformed file", []string{"preview", "web", "--state-file", malformed}, "bad.yaml"},
		{"missing file", []string{"preview", "web", "--state-file", filepath.Join(dir, "none.yaml")}, "none.yaml"},
		{"invalid maxSurge", []string{"preview", "web", "--state-file", stateFile, "-f", badSurge}, "maxSurge"},
		{"unknown container", []string{"preview", "web", "--state-file", stateFile, "--image", "web=nginx:2"}, `"web"`},
		{"unknown revision", []string{"preview", "web", "--state-file", stateFile, "--to-revision", "9"}, "revision 9"},
		{"negative revision", []string{"preview", "web", "--state-file", stateFile, "--to-revision", "-1"}, "--to-revision"},
		{"negative replicas", []string{"preview", "web", "--state-file", stateFile, "--replicas", "-2"}, "--replicas"},
		{"unknown readiness", []string{"preview", "web", "--state-file", stateFile, "--readiness", "soon"}, "batched"},
		{"unknown output", []string{"preview", "web", "--state-file", stateFile, "-o", "table"}, "json"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runRoot(t, "", tc.args...)
			if code != ExitError {
				t.Errorf("exit %d, want %d", code, ExitError)
			}
			if out != "" {
				t.Errorf("stdout not empty:\n%s", out)
			}
			lines := strings.Split(strings.TrimRight(errOut, "\n"), "\n")
			if len(lines) != 1 || !strings.HasPrefix(lines[0], "error: ") || !strings.Contains(lines[0], tc.want) {
				t.Errorf("stderr %q: want one line starting with \"error: \" naming %s", errOut, tc.want)
			}
			if strings.Contains(errOut, "goroutine") || strings.Contains(errOut, "panic") {
				t.Errorf("stack trace in %q", errOut)
			}
		})
	}
}

// TestPreviewLive runs preview against a fake API server holding the bundled state: one GET
// and one LIST to read, then a dry-run update for the exact template. Without permission
// for the dry run it falls back to the client-side template and says so; nothing is written.
func TestPreviewLive(t *testing.T) {
	st, err := cluster.LoadFile(stateFile, "shop", "web")
	if err != nil {
		t.Fatal(err)
	}
	objects := []runtime.Object{st.Deployment}
	for _, rs := range st.ReplicaSets {
		objects = append(objects, rs)
	}
	for _, forbidden := range []bool{false, true} {
		cs := fake.NewClientset(objects...)
		if forbidden {
			cs.PrependReactor("update", "deployments", func(k8stesting.Action) (bool, runtime.Object, error) {
				return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "apps", Resource: "deployments"}, "web", nil)
			})
		}
		var out, errOut bytes.Buffer
		o := NewPreviewOptions(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
		o.Namespace, o.Name = "shop", "web"
		o.Client = func() (kubernetes.Interface, error) { return cs, nil }
		o.Change.Images = []string{"nginx=nginx:1.27"}
		o.Checks = "none" // the feasibility reads: TestPreviewFeasibilityReads
		if err := o.Run(t.Context()); err != nil {
			t.Fatalf("forbidden=%v: %v", forbidden, err)
		}
		var verbs []string
		for _, a := range cs.Actions() {
			verbs = append(verbs, a.GetVerb()+" "+a.GetResource().Resource)
		}
		want := "get deployments,list replicasets,update deployments"
		if got := strings.Join(verbs, ","); got != want {
			t.Errorf("forbidden=%v: requests %s, want %s", forbidden, got, want)
		}
		if a := cs.Actions()[2].(k8stesting.UpdateAction); len(a.(k8stesting.UpdateActionImpl).UpdateOptions.DryRun) != 1 {
			t.Errorf("forbidden=%v: the update is not a dry run: %+v", forbidden, a)
		}
		warned := strings.Contains(out.String(), "no permission for a server-side dry run")
		if warned != forbidden {
			t.Errorf("forbidden=%v: warning shown %v:\n%s", forbidden, warned, out.String())
		}
		if !strings.Contains(out.String(), "Outcome: Complete after 6 writes") {
			t.Errorf("forbidden=%v: output:\n%s", forbidden, out.String())
		}
	}
}
