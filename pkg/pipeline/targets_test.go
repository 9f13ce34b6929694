package pipeline

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline/pipelinetest"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// TestCompleteOne resolves arguments through a real factory (a kubeconfig whose context
// selects namespace team-a) against a server that fails the test on any request: online the
// name goes through target.Selection's builder and asks nothing; with a state file the
// namespace is -n's or empty.
func TestCompleteOne(t *testing.T) {
	kc := pipelinetest.NoRequestKubeconfig(t)
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
			ref, err := CompleteOne(cmdutil.NewFactory(flags), tc.args, tc.stateFile)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, ref); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// TestCompleteMany: the selection of many Deployments, through a real factory and no
// request; Resolve of names asks nothing either.
func TestCompleteMany(t *testing.T) {
	kc := pipelinetest.NoRequestKubeconfig(t)
	for _, tc := range []struct {
		name      string
		args      []string
		flags     []string
		choices   target.Choices
		stateFile string
		wantRefs  []target.Ref
		wantScope *target.Scope
		wantErr   string
	}{
		{name: "several names", args: []string{"a", "deploy/b"}, choices: target.Choices{Many: true},
			wantRefs: []target.Ref{{Namespace: "team-a", Name: "a"}, {Namespace: "team-a", Name: "b"}}},
		{name: "-l with -n", flags: []string{"-l", "app=web", "-n", "shop"}, choices: target.Choices{Many: true},
			wantScope: &target.Scope{Namespace: "shop", LabelSelector: "app=web", ChunkSize: 500}},
		{name: "-A --chunk-size", flags: []string{"-A", "--chunk-size", "20"}, choices: target.Choices{Many: true, AllNamespaces: true},
			wantScope: &target.Scope{ChunkSize: 20}},
		{name: "offline names without -n", args: []string{"a", "b"}, stateFile: "s.yaml", choices: target.Choices{Many: true},
			wantRefs: []target.Ref{{Name: "a"}, {Name: "b"}}},
		{name: "names and -l", args: []string{"a"}, flags: []string{"-l", "x=y"}, choices: target.Choices{Many: true},
			wantErr: "name cannot be provided when a selector is specified"},
		{name: "one only", flags: []string{"-l", "x=y"}, choices: target.Choices{OneOnly: "drive works on one Deployment per run"},
			wantErr: "-l x=y selects Deployments: drive works on one Deployment per run"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			flags := genericclioptions.NewConfigFlags(false)
			*flags.KubeConfig = kc
			cmd := &cobra.Command{Use: "x"}
			flags.AddFlags(cmd.Flags())
			sf := target.NewFlags(tc.choices)
			sf.AddFlags(cmd)
			if err := cmd.ParseFlags(tc.flags); err != nil {
				t.Fatal(err)
			}
			sel, err := CompleteMany(cmdutil.NewFactory(flags), sf, tc.args, tc.stateFile)
			if tc.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantScope != nil {
				if !sel.Bulk() {
					t.Fatal("not a bulk selection")
				}
				if d := cmp.Diff(*tc.wantScope, sel.Scope()); d != "" {
					t.Errorf("scope (-want +got):\n%s", d)
				}
				return
			}
			refs, err := sel.Resolve(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.wantRefs, refs); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// TestCompleteFleet: with a state file, -l (a listing of a cluster) is refused; names are not.
func TestCompleteFleet(t *testing.T) {
	flags := genericclioptions.NewConfigFlags(false)
	*flags.KubeConfig = pipelinetest.Kubeconfig(t, "http://127.0.0.1:1")
	for _, tc := range []struct {
		args, flags []string
		wantErr     string
	}{
		{args: []string{"a", "b"}},
		{flags: []string{"-l", "app=web"}, wantErr: "-l, --all and -A list a cluster: with --state-file, name the Deployments (deploy/a deploy/b)"},
	} {
		cmd := &cobra.Command{Use: "x"}
		sf := target.NewFlags(target.Choices{Many: true, AllNamespaces: true})
		sf.AddFlags(cmd)
		if err := cmd.ParseFlags(tc.flags); err != nil {
			t.Fatal(err)
		}
		_, err := CompleteFleet(cmdutil.NewFactory(flags), sf, tc.args, "s.yaml")
		if got := fmt.Sprint(err); tc.wantErr != "" && got != tc.wantErr || tc.wantErr == "" && err != nil {
			t.Errorf("%v %v: error %v, want %q", tc.args, tc.flags, err, tc.wantErr)
		}
	}
}
