package cmd

import (
	"bytes"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline/pipelinetest"
)

func TestCompletionScripts(t *testing.T) {
	for shell, marker := range map[string]string{
		"bash":       "__start_kubectl-rollplan",
		"zsh":        "#compdef kubectl-rollplan",
		"fish":       "complete -c kubectl-rollplan",
		"powershell": "Register-ArgumentCompleter -CommandName 'kubectl-rollplan'",
	} {
		t.Run(shell, func(t *testing.T) {
			streams, _, out, _ := genericiooptions.NewTestIOStreams()
			root := NewCmdRollplan(streams)
			root.SetArgs([]string{"completion", shell})
			if err := root.Execute(); err != nil {
				t.Fatal(err)
			}
			script := out.String()
			if !strings.Contains(script, marker) || !strings.Contains(script, "__complete") {
				t.Errorf("%s script lacks %q or the __complete call:\n%.400s", shell, marker, script)
			}
		})
	}
}

func TestCompletionNeedsOneKnownShell(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, "shell not specified"},
		{[]string{"tcsh"}, `unsupported shell "tcsh"`},
		{[]string{"bash", "zsh"}, "too many arguments"},
	} {
		streams, _, out, _ := genericiooptions.NewTestIOStreams()
		root := NewCmdRollplan(streams)
		root.SetArgs(append([]string{"completion"}, tt.args...))
		root.SetErr(&bytes.Buffer{})
		err := root.Execute()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("completion %v: got %v, want an error with %q", tt.args, err, tt.want)
		}
		if out.Len() != 0 {
			t.Errorf("completion %v printed a script on error", tt.args)
		}
	}
}

// fakeAPIServer is pipelinetest.APIServer of pipelinetest.CompletionObjects (the contexts
// tests of several verbs share it).
func fakeAPIServer(t *testing.T) (*httptest.Server, *[]string) {
	return pipelinetest.APIServer(t, pipelinetest.CompletionObjects())
}

// kubeconfig is pipelinetest.Kubeconfig: contexts ctx-a (team-a, current) and ctx-b (team-b).
func kubeconfig(t *testing.T, server string) string { return pipelinetest.Kubeconfig(t, server) }

// complete runs cobra's hidden __complete command on the real root, as the shell scripts and
// kubectl_complete-rollplan do, and returns the completions and the directive line.
func complete(t *testing.T, args ...string) ([]string, string) {
	t.Helper()
	streams, _, out, _ := genericiooptions.NewTestIOStreams()
	root := NewCmdRollplan(streams)
	var buf bytes.Buffer
	root.SetOut(&buf)
	root.SetErr(&bytes.Buffer{})
	root.SetArgs(append([]string{cobra.ShellCompRequestCmd}, args...))
	if err := root.Execute(); err != nil {
		t.Fatalf("__complete %v: %v", args, err)
	}
	if out.Len() != 0 {
		t.Fatalf("__complete wrote to the command's stdout: %q", out.String())
	}
	lines := strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
	return lines[:len(lines)-1], lines[len(lines)-1]
}

func TestDynamicCompletionThroughTheCommandLine(t *testing.T) {
	srv, seen := fakeAPIServer(t)
	kc := kubeconfig(t, srv.URL)
	noFile := ":4"           // ShellCompDirectiveNoFileComp
	noFileKeepOrder := ":36" // NoFileComp | KeepOrder
	for _, tt := range []struct {
		name      string
		args      []string
		want      []string
		directive string
	}{
		{"history: names in the context's namespace", []string{"history", "--kubeconfig", kc, ""}, []string{"api", "web", "worker"}, noFile},
		{"preview: -n wins over the context", []string{"preview", "--kubeconfig", kc, "-n", "team-b", ""}, []string{"batch"}, noFile},
		{"undo: --context selects team-b", []string{"undo", "--kubeconfig", kc, "--context", "ctx-b", ""}, []string{"batch"}, noFile},
		{"pause: deploy/ prefix kept", []string{"pause", "--kubeconfig", kc, "deploy/w"}, []string{"deploy/web", "deploy/worker"}, noFile},
		{"second argument: the names not given yet", []string{"resume", "--kubeconfig", kc, "web", ""}, []string{"api", "worker"}, noFile},
		{"third argument, prefixes kept", []string{"pause", "--kubeconfig", kc, "web", "deploy/api", "deploy/"}, []string{"deploy/worker"}, noFile},
		{"drive takes one name: second argument nothing", []string{"drive", "--kubeconfig", kc, "web", ""}, nil, noFile},
		{"history --diff: later arguments are revisions", []string{"history", "--kubeconfig", kc, "web", "--diff", ""}, nil, noFile},
		{"deploy.v1.apps/ prefix kept", []string{"pause", "--kubeconfig", kc, "deploy.v1.apps/a"}, []string{"deploy.v1.apps/api"}, noFile},
		{"TYPE NAME: names after the type", []string{"history", "--kubeconfig", kc, "deployment", "w"}, []string{"web", "worker"}, noFile},
		{"TYPE TYPE/NAME: nothing", []string{"history", "--kubeconfig", kc, "deployment", "deploy/w"}, nil, noFile},
		{"TYPE NAME NAME: the names not given yet", []string{"history", "--kubeconfig", kc, "deployment", "web", ""}, []string{"api", "worker"}, noFile},
		{"undo deploy.v1.apps/web --to-revision", []string{"undo", "deploy.v1.apps/web", "--kubeconfig", kc, "--to-revision", ""}, []string{"3\tnginx:1.20,envoy:1.30 (current)", "1\tnginx:1.18"}, noFileKeepOrder},
		{"undo deployment web --to-revision", []string{"undo", "deployment", "web", "--kubeconfig", kc, "--to-revision", ""}, []string{"3\tnginx:1.20,envoy:1.30 (current)", "1\tnginx:1.18"}, noFileKeepOrder},
		{"--to-revision after another kind", []string{"undo", "rs/web-1", "--kubeconfig", kc, "--to-revision", ""}, nil, noFile},
		{"undo --to-revision", []string{"undo", "deploy/web", "--kubeconfig", kc, "--to-revision", ""}, []string{"3\tnginx:1.20,envoy:1.30 (current)", "1\tnginx:1.18"}, noFileKeepOrder},
		{"history --revision=", []string{"history", "web", "--kubeconfig", kc, "--revision="}, []string{"3\tnginx:1.20,envoy:1.30 (current)", "1\tnginx:1.18"}, noFileKeepOrder},
		{"preview --to-revision without a deployment", []string{"preview", "--kubeconfig", kc, "--to-revision", ""}, nil, noFile},
		{"-n values", []string{"history", "--kubeconfig", kc, "-n", ""}, []string{"team-a", "team-b"}, noFile},
		{"--context values", []string{"history", "--kubeconfig", kc, "--context", "ctx-"}, []string{"ctx-a", "ctx-b"}, noFile},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, directive := complete(t, tt.args...)
			if d := cmp.Diff(tt.want, got, cmpEmptyNil); d != "" {
				t.Errorf("completions (-want +got):\n%s", d)
			}
			if directive != tt.directive {
				t.Errorf("directive %s, want %s", directive, tt.directive)
			}
		})
	}
	if len(*seen) == 0 {
		t.Error("the fake API server was never asked: completions did not come from the cluster")
	}
}

var cmpEmptyNil = cmp.Transformer("nilEmpty", func(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
})
