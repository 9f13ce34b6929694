package cmd

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// TestTargetComplete resolves arguments through a real factory (a kubeconfig whose context
// selects namespace team-a) against a server that fails the test on any request: online the
// name goes through target.Selection's builder and asks nothing; with a state file the
// namespace is -n's or empty.
func TestTargetComplete(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		t.Errorf("unexpected request %s %s", r.Method, r.URL)
	}))
	t.Cleanup(srv.Close)
	kc := kubeconfig(t, srv.URL)
	for _, tc := range []struct {
		name      string
		args      []string
		namespace string // -n
		stateFile string
		want      target.Ref
		wantErr   string
	}{
		{name: "NAME in the context's namespace", args: []string{"web"}, want: target.Ref{Namespace: "team-a", Name: "web"}},
		{name: "deploy.v1.apps/NAME with -n", args: []string{"deploy.v1.apps/web"}, namespace: "shop", want: target.Ref{Namespace: "shop", Name: "web"}},
		{name: "TYPE NAME", args: []string{"deployments", "api"}, want: target.Ref{Namespace: "team-a", Name: "api"}},
		{name: "offline without -n", args: []string{"web"}, stateFile: "state.yaml", want: target.Ref{Name: "web"}},
		{name: "offline with -n", args: []string{"deploy/web"}, namespace: "shop", stateFile: "state.yaml", want: target.Ref{Namespace: "shop", Name: "web"}},
		{name: "another kind", args: []string{"sts/db"}, wantErr: "rollplan works on Deployments; got statefulsets"},
		{name: "no argument", wantErr: "a Deployment is required: give deploy/NAME (or NAME)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			flags := genericclioptions.NewConfigFlags(false)
			*flags.KubeConfig = kc
			if tc.namespace != "" {
				*flags.Namespace = tc.namespace
			}
			var tg Target
			err := tg.complete(cmdutil.NewFactory(flags), tc.args, tc.stateFile, nil)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, tg.Ref); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			if tg.Client == nil {
				t.Error("no client")
			}
		})
	}
}
