package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// settled returns a Deployment of ns/name with 2 replicas rolled out, and its ReplicaSet.
func settled(ns, name string) []runtime.Object {
	d := testutil.Deployment(name).Namespace(ns).Replicas(2).Status(2, 2, 2, 2).Build()
	return []runtime.Object{d, testutil.ReplicaSetFor(d).Revision(1).Available(2).Build()}
}

// newStatusContextsTest is status of sel across contexts of historyKubeconfig: ctx-a (team-a:
// web, api) and ctx-b (team-b: batch) are fake clientsets; down is a real client of a closed
// port.
func newStatusContextsTest(t *testing.T, sel *target.Selection, contexts ...string) (*StatusOptions, *strings.Builder, *strings.Builder) {
	t.Helper()
	path := historyKubeconfig(t, "http://127.0.0.1:1")
	flags := genericclioptions.NewConfigFlags(true)
	flags.KubeConfig = &path
	fakes := map[string]*fake.Clientset{
		"ctx-a": fake.NewClientset(append(settled("team-a", "web"), settled("team-a", "api")...)...),
		"ctx-b": fake.NewClientset(settled("team-b", "batch")...),
	}
	o, out := newStatusTest(fake.NewClientset())
	errOut := &strings.Builder{}
	o.ErrOut = errOut
	o.Selection = sel
	o.Contexts = ContextFlags{Contexts: contexts, Kubeconfig: &pipeline.Kubeconfig{Flags: flags,
		NewClient: func(name string, cfg *rest.Config) (kubernetes.Interface, error) {
			if c, ok := fakes[name]; ok {
				return c, nil
			}
			return kubernetes.NewForConfig(cfg)
		}}}
	cmd := &cobra.Command{}
	cmd.Flags().String("context", "", "")
	if err := o.Contexts.resolve(cmd); err != nil {
		t.Fatal(err)
	}
	return o, out, errOut
}

// TestStatusContexts: --all in three contexts, one unreachable: one line per Deployment led
// by its context, in the order of --contexts, each context in its own namespace; one stderr
// line naming the unreachable context; exit 1.
func TestStatusContexts(t *testing.T) {
	o, out, errOut := newStatusContextsTest(t, &target.Selection{Namespace: "team-a", Many: true, All: true}, "ctx-b", "down", "ctx-a")
	err := o.Run(context.Background())
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != ExitError {
		t.Errorf("error %v, want exit %d", err, ExitError)
	}
	if e := errOut.String(); !strings.HasPrefix(e, "error: context down: ") || strings.Count(e, "\n") != 1 {
		t.Errorf("stderr %q; want one line for context down", e)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 || !strings.Contains(l, "successfully rolled out") {
			t.Fatalf("line %q", l)
		}
		got = append(got, f[0]+" "+f[1])
	}
	if want := "ctx-b team-b/batch|ctx-a team-a/api|ctx-a team-a/web"; strings.Join(got, "|") != want {
		t.Errorf("lines %q, want %q:\n%s", got, want, out)
	}
}

// TestStatusContextsJSON: -o json is one RolloutStatusList whose items carry their context;
// a name missing in one context is that context's failure.
func TestStatusContextsJSON(t *testing.T) {
	o, out, errOut := newStatusContextsTest(t, &target.Selection{Args: []string{"deploy/web"}, Namespace: "team-a", Many: true}, "ctx-a", "ctx-b")
	o.Output.Output = "json"
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	err := o.Run(context.Background())
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != ExitError || !strings.HasPrefix(errOut.String(), "error: context ctx-b: ") {
		t.Errorf("error %v, stderr %q; want ctx-b's not found, exit 1", err, errOut)
	}
	var list struct {
		Kind  string
		Items []struct {
			Context    string
			Deployment struct{ Namespace, Name string }
		}
	}
	if err := json.Unmarshal([]byte(out.String()), &list); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	var got []string
	for _, it := range list.Items {
		got = append(got, it.Context+"/"+it.Deployment.Namespace+"/"+it.Deployment.Name)
	}
	if list.Kind != "RolloutStatusList" || strings.Join(got, " ") != "ctx-a/team-a/web" {
		t.Errorf("kind %s, items %v", list.Kind, got)
	}
}

// TestStatusContextsRefused: an unknown context is refused before any request, naming the
// kubeconfig's contexts; --watch across contexts is refused.
func TestStatusContextsRefused(t *testing.T) {
	srv, seen := fakeAPIServer(t)
	kc := historyKubeconfig(t, srv.URL)
	_, errOut, code := runRoot(t, "", "status", "--all", "--kubeconfig", kc, "--contexts", "ctx-a,nope")
	if code != ExitError || !strings.Contains(errOut, `context "nope" is not in the kubeconfig; its contexts are: ctx-a, ctx-b, down`) {
		t.Errorf("unknown: exit %d, %q", code, errOut)
	}
	_, errOut, code = runRoot(t, "", "status", "--all", "--watch", "--kubeconfig", kc, "--all-contexts")
	if code != ExitError || !strings.Contains(errOut, "status --watch follows one cluster") {
		t.Errorf("--watch: exit %d, %q", code, errOut)
	}
	_, errOut, code = runRoot(t, "", "status", "sts/db", "--kubeconfig", kc, "--contexts", "ctx-a,ctx-b")
	if code != ExitError || !strings.Contains(errOut, "StatefulSets and DaemonSets reads one context") {
		t.Errorf("sts/db: exit %d, %q", code, errOut)
	}
	if len(*seen) != 0 {
		t.Errorf("requests %v, want none", *seen)
	}
}

// TestReadVerbsContextsCompletion: status, drive status and reload complete --contexts with
// the kubeconfig's context names, sending no request.
func TestReadVerbsContextsCompletion(t *testing.T) {
	srv, seen := fakeAPIServer(t)
	kc := kubeconfig(t, srv.URL)
	for _, verb := range [][]string{{"status"}, {"drive", "status"}, {"reload"}} {
		got, _ := complete(t, append(verb, "--kubeconfig", kc, "--contexts", "ctx-b,")...)
		if strings.Join(got, " ") != "ctx-b,ctx-a" {
			t.Errorf("%v: completions %q, want [ctx-b,ctx-a]", verb, got)
		}
	}
	if len(*seen) != 0 {
		t.Errorf("completion sent requests: %v", *seen)
	}
}
