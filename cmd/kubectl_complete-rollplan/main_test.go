package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// TestHelperRunsThePluginBesideIt builds the helper, puts a fake kubectl-rollplan beside it (a
// script that prints its arguments and exits 3) and another on PATH, and checks that the helper
// runs the one beside it with "__complete" and the arguments kubectl gave, keeping an empty last
// argument, stdout and the exit code.
func TestHelperRunsThePluginBesideIt(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake plugin is a shell script")
	}
	dir := t.TempDir()
	helper := filepath.Join(dir, "kubectl_complete-rollplan")
	if out, err := exec.Command("go", "build", "-o", helper, ".").CombinedOutput(); err != nil {
		t.Fatalf("build helper: %v\n%s", err, out)
	}
	script := func(path, name string) {
		body := "#!/bin/sh\nprintf '" + name + ":'; for a in \"$@\"; do printf '[%s]' \"$a\"; done; echo; exit 3\n"
		if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script(filepath.Join(dir, "kubectl-rollplan"), "beside")
	onPath := t.TempDir()
	script(filepath.Join(onPath, "kubectl-rollplan"), "path")

	run := func(bin string) (string, int) {
		cmd := exec.Command(bin, "preview", "-n", "ns", "")
		cmd.Env = []string{"PATH=" + onPath + ":/usr/bin:/bin"}
		out, err := cmd.Output()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), code
	}
	if out, code := run(helper); out != "beside:[__complete][preview][-n][ns][]\n" || code != 3 {
		t.Errorf("helper beside the plugin: %q, exit %d", out, code)
	}

	// Copied elsewhere without a plugin beside it (as into Krew's bin before the plugin is
	// linked there), it falls back to PATH.
	alone := filepath.Join(t.TempDir(), "kubectl_complete-rollplan")
	b, _ := os.ReadFile(helper)
	if err := os.WriteFile(alone, b, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, code := run(alone); out != "path:[__complete][preview][-n][ns][]\n" || code != 3 {
		t.Errorf("helper alone: %q, exit %d", out, code)
	}
}
