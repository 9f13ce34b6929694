// Command kubectl_complete-rollplan is the helper kubectl (>= 1.26) runs to complete the
// arguments of the plugin "kubectl rollplan": for `kubectl rollplan preview we<TAB>` kubectl
// runs `kubectl_complete-rollplan preview we` and reads completions, one a line, and a last
// ":<directive>" line from its stdout (k8s.io/kubectl pkg/cmd/plugin/plugin_completion.go).
//
// It runs `kubectl-rollplan __complete ARGS...` (cobra's completion entry point), taking the
// kubectl-rollplan beside itself if there is one (the release archive, or Krew's bin directory
// when the helper was copied there), else the one on PATH. It must itself be on PATH for
// kubectl to find it; Krew links only the plugin's bin, see the README.
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	plugin, err := findPlugin()
	if err != nil {
		fmt.Fprintf(os.Stderr, "kubectl_complete-rollplan: %v\n", err)
		return 1
	}
	cmd := exec.Command(plugin, append([]string{"__complete"}, args...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode()
		}
		fmt.Fprintf(os.Stderr, "kubectl_complete-rollplan: run %s: %v\n", plugin, err)
		return 1
	}
	return 0
}

// findPlugin returns kubectl-rollplan next to this executable (as invoked, then with symlinks
// resolved), or the one on PATH.
func findPlugin() (string, error) {
	name := "kubectl-rollplan"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	var dirs []string
	if len(os.Args) > 0 && filepath.IsAbs(os.Args[0]) {
		dirs = append(dirs, filepath.Dir(os.Args[0]))
	}
	if self, err := os.Executable(); err == nil {
		dirs = append(dirs, filepath.Dir(self))
		if real, err := filepath.EvalSymlinks(self); err == nil {
			dirs = append(dirs, filepath.Dir(real))
		}
	}
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, nil
		}
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("find %s beside this helper or on PATH: %w", name, err)
	}
	return p, nil
}
