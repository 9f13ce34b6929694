//go:build e2e

// Package dist tests the release as a user gets it: the archives and Krew manifest of
// `make dist` against Krew's rules, rebuilt byte for byte from a copy of the source at another
// path, installed the way `kubectl krew install --manifest --archive` installs them into a
// temporary KREW_ROOT, then run through the plugin discovery and plugin completion of kubectl
// v1.36.3 (_output/bin/kubectl, built by hack/cluster/build.sh) with only Krew's bin on PATH.
//
// ROLLPLAN_DIST_DIR names the dist/ to test (make test-dist-all sets it after make dist, make
// test-dist after building the host's archive only); without it the tests run hack/dist
// themselves, every platform, into a temporary directory. The completion test uses
// the local cluster of test/e2e/framework.
package dist

import (
	"bytes"
	"debug/buildinfo"
	"debug/elf"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/rollplan/kubectl-rollplan/internal/krewcheck"
	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

func TestMain(m *testing.M) { framework.Main(m) }

// buildInfo is dist/build.json, written by hack/dist.
type buildInfo struct {
	Version   string             `json:"version"`
	Commit    string             `json:"commit"`
	MTime     int64              `json:"mtime"`
	Go        string             `json:"go"`
	Platforms []krewcheck.OSArch `json:"platforms"`
}

type release struct {
	root     string // repository root
	dir      string // the dist directory
	info     buildInfo
	manifest krewcheck.Plugin
}

var (
	relOnce sync.Once
	rel     *release
	relErr  error
)

// theRelease returns the dist under test, building it first when ROLLPLAN_DIST_DIR is unset.
func theRelease(t *testing.T) *release {
	t.Helper()
	relOnce.Do(func() { rel, relErr = loadRelease() })
	if relErr != nil {
		t.Fatal(relErr)
	}
	return rel
}

func loadRelease() (*release, error) {
	root, err := repoRoot()
	if err != nil {
		return nil, err
	}
	dir := os.Getenv("ROLLPLAN_DIST_DIR")
	if dir == "" {
		dir, err = os.MkdirTemp("", "rollplan-dist-test")
		if err != nil {
			return nil, err
		}
		version, err := os.ReadFile(filepath.Join(root, "krew", "VERSION"))
		if err != nil {
			return nil, err
		}
		if err := runDist(root, dir, buildInfo{Version: strings.TrimSpace(string(version)), Commit: "e2etest", MTime: 1767225600}); err != nil {
			return nil, err
		}
	}
	r := &release{root: root, dir: dir}
	b, err := os.ReadFile(filepath.Join(dir, "build.json"))
	if err != nil {
		return nil, fmt.Errorf("%s is not the output of hack/dist (run make dist): %w", dir, err)
	}
	if err := json.Unmarshal(b, &r.info); err != nil {
		return nil, fmt.Errorf("decode build.json: %w", err)
	}
	r.manifest, err = krewcheck.ReadPluginFile(filepath.Join(dir, "rollplan.yaml"))
	if err != nil {
		return nil, err
	}
	return r, nil
}

// runDist runs hack/dist of the source tree src with the inputs of info, into out: the
// platforms of info.Platforms, or every platform when it is empty.
func runDist(src, out string, info buildInfo) error {
	args := []string{"run", "./hack/dist", "-version", info.Version, "-commit", info.Commit,
		"-mtime", fmt.Sprint(info.MTime), "-out", out}
	if len(info.Platforms) > 0 {
		var pls []string
		for _, p := range info.Platforms {
			pls = append(pls, p.String())
		}
		args = append(args, "-platforms", strings.Join(pls, ","))
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = src
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("hack/dist in %s: %v\n%s", src, err, stderr.String())
	}
	return nil
}

func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && bytes.HasPrefix(b, []byte("module github.com/rollplan/kubectl-rollplan\n")) {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod of github.com/rollplan/kubectl-rollplan above %s", dir)
		}
	}
}

// archiveOf returns the local archive of platform pl (the file named like its uri).
func (r *release) archiveOf(pl krewcheck.Platform) string {
	return filepath.Join(r.dir, path.Base(pl.URI))
}

func TestManifestPassesKrewRulesAndMatchesTheArchives(t *testing.T) {
	r := theRelease(t)
	p, err := krewcheck.ValidateManifestFile(filepath.Join(r.dir, "rollplan.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// Every platform built (build.json: all six from make dist and make test-dist-all, the
	// host's from make test) has its entry, and only those.
	if err := krewcheck.ValidateRelease(p, r.info.Platforms); err != nil {
		t.Fatal(err)
	}
	if len(p.Spec.Platforms) != len(r.info.Platforms) {
		t.Fatalf("the manifest has %d platforms, build.json lists %d built", len(p.Spec.Platforms), len(r.info.Platforms))
	}
	if want, _ := os.ReadFile(filepath.Join(r.root, "krew", "VERSION")); p.Spec.Version != strings.TrimSpace(string(want)) || p.Spec.Version != r.info.Version {
		t.Errorf("manifest version %s, build.json %s, krew/VERSION %s", p.Spec.Version, r.info.Version, want)
	}

	// checksums.txt lists exactly the manifest's archives with their real sums.
	sums, err := os.ReadFile(filepath.Join(r.dir, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var fromFile, fromManifest []string
	for _, line := range strings.Split(strings.TrimSpace(string(sums)), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok {
			t.Fatalf("checksums.txt line %q is not `SUM  NAME`", line)
		}
		real, err := krewcheck.FileSHA256(filepath.Join(r.dir, name))
		if err != nil || real != sum {
			t.Errorf("checksums.txt says %s for %s, the file hashes to %s (%v)", sum, name, real, err)
		}
		fromFile = append(fromFile, sum+"  "+name)
	}
	for _, pl := range p.Spec.Platforms {
		fromManifest = append(fromManifest, pl.Sha256+"  "+path.Base(pl.URI))
	}
	byName := func(a, b string) int { return strings.Compare(a[66:], b[66:]) }
	slices.SortFunc(fromManifest, byName)
	slices.SortFunc(fromFile, byName)
	if d := cmp.Diff(fromManifest, fromFile); d != "" {
		t.Errorf("checksums.txt vs manifest (-manifest +checksums.txt):\n%s", d)
	}

	// Each archive: sha256 as in the manifest, bin, completion helper and LICENSE installed by
	// the files operations, executables executable.
	for _, pl := range p.Spec.Platforms {
		target := krewcheck.MatchingTargets(pl.Selector, r.info.Platforms)[0]
		if err := krewcheck.CheckArchive(p.Name, pl, target, r.archiveOf(pl)); err != nil {
			t.Errorf("%s: %v", target, err)
		}
	}
}

// extract returns the files of a tar.gz or zip release archive, by installing it as Krew would
// into a scratch KREW_ROOT for platform target.
func extract(t *testing.T, r *release, target krewcheck.OSArch) string {
	t.Helper()
	root := t.TempDir()
	if err := krewcheck.Install(krewcheck.Paths{Root: root}, r.manifest, krewcheck.InstallOptions{
		Archive: r.archiveOf(platformFor(t, r, target)), Env: target, IndexName: "detached", Now: time.Now(),
	}); err != nil {
		t.Fatalf("%s: %v", target, err)
	}
	return filepath.Join(root, "store", "rollplan", r.manifest.Spec.Version)
}

func platformFor(t *testing.T, r *release, target krewcheck.OSArch) krewcheck.Platform {
	t.Helper()
	pl, ok, err := krewcheck.MatchPlatform(r.manifest.Spec.Platforms, target)
	if err != nil || !ok {
		t.Fatalf("no platform for %s in the manifest (%v)", target, err)
	}
	return pl
}

// TestBinariesAreStaticStampedAndForTheirPlatform reads the Go build information of every
// binary in every archive: built for the archive's os/arch by the Go of build.json, CGO off,
// -trimpath, no VCS stamp; the plugin carries the version and commit of build.json; the Linux
// ones are static ELF files.
func TestBinariesAreStaticStampedAndForTheirPlatform(t *testing.T) {
	r := theRelease(t)
	if runtime.GOOS == "windows" {
		t.Skip("installing needs symlinks")
	}
	for _, target := range r.info.Platforms {
		dir := extract(t, r, target)
		for _, name := range []string{krewcheck.BinName("rollplan", target.OS), krewcheck.CompletionHelperName("rollplan", target.OS)} {
			file := filepath.Join(dir, name)
			bi, err := buildinfo.ReadFile(file)
			if err != nil {
				t.Fatalf("%s %s: %v", target, name, err)
			}
			settings := map[string]string{}
			for _, s := range bi.Settings {
				settings[s.Key] = s.Value
			}
			if settings["GOOS"] != target.OS || settings["GOARCH"] != target.Arch || settings["CGO_ENABLED"] != "0" ||
				settings["-trimpath"] != "true" || settings["vcs"] != "" || bi.GoVersion != r.info.Go {
				t.Errorf("%s %s: go %s, settings %v", target, name, bi.GoVersion, settings)
			}
			if name == krewcheck.BinName("rollplan", target.OS) {
				// Go does not record -ldflags under -trimpath: look for the stamped strings
				// (the host's binary is run by TestKrewInstallThenKubectlFindsAndRunsThePlugin).
				data, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				for _, want := range []string{r.info.Version, r.info.Commit} {
					if !bytes.Contains(data, []byte(want)) {
						t.Errorf("%s %s: %q is not stamped in", target, name, want)
					}
				}
			}
			if target.OS == "linux" {
				f, err := elf.Open(file)
				if err != nil {
					t.Fatal(err)
				}
				libs, _ := f.ImportedLibraries()
				for _, prog := range f.Progs {
					if prog.Type == elf.PT_INTERP {
						t.Errorf("%s %s has an ELF interpreter: not static", target, name)
					}
				}
				if len(libs) != 0 {
					t.Errorf("%s %s links %v: not static", target, name, libs)
				}
				f.Close()
			}
		}
	}
}

// TestDistIsReproducible builds the release again, from a copy of the source tree at another
// path, with the inputs recorded in build.json, and compares every archive and the manifest
// byte for byte.
func TestDistIsReproducible(t *testing.T) {
	r := theRelease(t)
	src := filepath.Join(t.TempDir(), "another", "checkout", "of", "rollplan")
	copySourceTree(t, r.root, src)
	out := t.TempDir()
	start := time.Now()
	if err := runDist(src, out, r.info); err != nil {
		t.Fatal(err)
	}
	t.Logf("second build of %d archives from %s: %.0fs", len(r.info.Platforms), src, time.Since(start).Seconds())
	for _, name := range []string{"checksums.txt", "rollplan.yaml", "build.json"} {
		a, errA := os.ReadFile(filepath.Join(r.dir, name))
		b, errB := os.ReadFile(filepath.Join(out, name))
		if errA != nil || errB != nil {
			t.Fatalf("%s: %v %v", name, errA, errB)
		}
		if d := cmp.Diff(string(a), string(b)); d != "" {
			t.Errorf("%s differs between the two builds (-first +second):\n%s", name, d)
		}
	}
	sums, _ := os.ReadFile(filepath.Join(out, "checksums.txt"))
	t.Logf("identical checksums:\n%s", sums)
}

// copySourceTree copies the files git knows of (tracked, and untracked but not ignored: what
// the build of the work tree sees) from root to dst.
func copySourceTree(t *testing.T, root, dst string) {
	t.Helper()
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git ls-files in %s: %v", root, err)
	}
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		from := filepath.Join(root, name)
		fi, err := os.Lstat(from)
		if err != nil || !fi.Mode().IsRegular() {
			continue // deleted in the work tree, or a symlink
		}
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		to := filepath.Join(dst, name)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, b, fi.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
}

// krewInstall installs the release for this machine into a new KREW_ROOT and returns it.
func krewInstall(t *testing.T, r *release) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("Krew's bin links are symlinks; this test runs on POSIX hosts")
	}
	root := t.TempDir()
	host := krewcheck.OSArch{OS: runtime.GOOS, Arch: runtime.GOARCH}
	err := krewcheck.Install(krewcheck.Paths{Root: root}, r.manifest, krewcheck.InstallOptions{
		Archive: r.archiveOf(platformFor(t, r, host)), Env: host, IndexName: "detached", Now: time.Now(),
	})
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// kubectl is the kubectl built from Kubernetes v1.36.3 by hack/cluster/build.sh.
func kubectl(t *testing.T, r *release) string {
	t.Helper()
	k := filepath.Join(r.root, "_output", "bin", "kubectl")
	if _, err := os.Stat(k); err != nil {
		t.Fatalf("%s not found: run `make cluster-binaries` (make test-dist does)", k)
	}
	return k
}

type result struct {
	stdout, stderr string
	code           int
}

// run runs bin with PATH set to path only (so kubectl sees no other plugin), a scratch HOME and
// the given extra environment.
func run(t *testing.T, path, bin string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append([]string{"PATH=" + path, "HOME=" + t.TempDir(), "KUBECONFIG=" + filepath.Join(t.TempDir(), "none")}, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := result{stdout.String(), stderr.String(), 0}
	if err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			t.Fatalf("run %s %v: %v", bin, args, err)
		}
		res.code = exit.ExitCode()
	}
	return res
}

func TestKrewInstallThenKubectlFindsAndRunsThePlugin(t *testing.T) {
	r := theRelease(t)
	k := kubectl(t, r)
	root := krewInstall(t, r)
	bin := filepath.Join(root, "bin")
	v := r.manifest.Spec.Version

	// The layout Krew leaves.
	for _, f := range []string{
		"store/rollplan/" + v + "/kubectl-rollplan",
		"store/rollplan/" + v + "/kubectl_complete-rollplan",
		"store/rollplan/" + v + "/LICENSE",
		"receipts/rollplan.yaml",
	} {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Errorf("KREW_ROOT/%s: %v", f, err)
		}
	}
	if target, err := os.Readlink(filepath.Join(bin, "kubectl-rollplan")); err != nil || target != "../store/rollplan/"+v+"/kubectl-rollplan" {
		t.Errorf("bin/kubectl-rollplan -> %q (%v)", target, err)
	}
	ents, _ := os.ReadDir(bin)
	if len(ents) != 1 {
		t.Errorf("Krew's bin has %d entries, want only kubectl-rollplan (Krew links nothing else)", len(ents))
	}

	// kubectl's plugin discovery finds it on PATH ...
	res := run(t, bin, k, nil, "plugin", "list")
	if res.code != 0 || !strings.Contains(res.stdout, filepath.Join(bin, "kubectl-rollplan")+"\n") || strings.Contains(res.stderr, "warning") {
		t.Fatalf("kubectl plugin list: exit %d\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	// ... and runs it.
	res = run(t, bin, k, nil, "rollplan", "version")
	host := runtime.GOOS + "/" + runtime.GOARCH
	want := fmt.Sprintf("kubectl-rollplan %s (commit %s, %s, %s)\nmodels the Deployment controller of Kubernetes v1.36.3\n", r.info.Version, r.info.Commit, r.info.Go, host)
	if res.code != 0 || res.stdout != want {
		t.Fatalf("kubectl rollplan version: exit %d\nstdout: %q\nwant:   %q\nstderr: %s", res.code, res.stdout, want, res.stderr)
	}
	res = run(t, bin, k, nil, "rollplan", "version", "-o", "json")
	var info map[string]string
	if err := json.Unmarshal([]byte(res.stdout), &info); err != nil {
		t.Fatalf("version -o json: %v\n%s", err, res.stdout)
	}
	wantInfo := map[string]string{"version": r.info.Version, "commit": r.info.Commit, "goVersion": r.info.Go, "platform": host, "controller": "kube-controller-manager v1.36.3"}
	if d := cmp.Diff(wantInfo, info); d != "" {
		t.Errorf("version -o json (-want +got):\n%s", d)
	}
	// kubectl passes the plugin's help through.
	res = run(t, bin, k, nil, "rollplan", "completion", "--help")
	if res.code != 0 || !strings.Contains(res.stdout, "kubectl_complete-rollplan") || !strings.Contains(res.stdout, "Examples:") {
		t.Errorf("kubectl rollplan completion --help: exit %d\n%s", res.code, res.stdout)
	}
}

func TestKrewRefusesATamperedArchive(t *testing.T) {
	r := theRelease(t)
	host := krewcheck.OSArch{OS: runtime.GOOS, Arch: runtime.GOARCH}
	pl := platformFor(t, r, host)
	b, err := os.ReadFile(r.archiveOf(pl))
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-100] ^= 0x01
	tampered := filepath.Join(t.TempDir(), path.Base(pl.URI))
	if err := os.WriteFile(tampered, b, 0o644); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	err = krewcheck.Install(krewcheck.Paths{Root: root}, r.manifest, krewcheck.InstallOptions{Archive: tampered, Env: host, Now: time.Now()})
	if krewcheck.RuleOf(err) != krewcheck.RuleArchiveSHA256 {
		t.Fatalf("tampered archive: %v, want rule %s", err, krewcheck.RuleArchiveSHA256)
	}
	if ents, _ := os.ReadDir(root); len(ents) != 0 {
		t.Errorf("the refused install left %d entries in KREW_ROOT", len(ents))
	}
}

// completions runs `kubectl __complete ARGS` (what kubectl's shell completion runs on TAB) and
// returns the completions and the directive.
func completions(t *testing.T, path, k string, args ...string) ([]string, string) {
	t.Helper()
	res := run(t, path, k, nil, append([]string{"__complete"}, args...)...)
	if res.code != 0 {
		t.Fatalf("kubectl __complete %v: exit %d: %s", args, res.code, res.stderr)
	}
	lines := strings.Split(strings.TrimRight(res.stdout, "\n"), "\n")
	return lines[:len(lines)-1], lines[len(lines)-1]
}

func TestKubectlCompletesThePluginThroughTheHelper(t *testing.T) {
	r := theRelease(t)
	k := kubectl(t, r)
	root := krewInstall(t, r)
	bin := filepath.Join(root, "bin")
	c := framework.Get(t)
	ns := c.Namespace(t)
	other := c.Namespace(t)
	c.CreateDeployment(t, ns, framework.NewDeployment("web").Replicas(2).Image("nginx:1.18"))
	c.CreateDeployment(t, ns, framework.NewDeployment("api").Image("api:1"))
	c.CreateDeployment(t, other, framework.NewDeployment("batch"))
	c.WaitForRollout(t, ns, "web", time.Minute)
	c.UpdateDeployment(t, ns, "web", func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "nginx:1.19" })
	c.WaitForRollout(t, ns, "web", time.Minute)

	deployArgs := []string{"rollplan", "preview", "--kubeconfig", c.Kubeconfig, "-n", ns, ""}

	// Krew linked only kubectl-rollplan: kubectl finds no helper, and completes no names.
	got, _ := completions(t, bin, k, deployArgs...)
	if len(got) != 0 {
		t.Fatalf("without the helper on PATH kubectl completed %q", got)
	}

	// The documented step (README, manifest caveats): copy the helper into Krew's bin.
	cp := exec.Command("sh", "-c", `cp ${KREW_ROOT:-$HOME/.krew}/store/rollplan/*/kubectl_complete-rollplan ${KREW_ROOT:-$HOME/.krew}/bin/`)
	cp.Env = []string{"KREW_ROOT=" + root, "PATH=/usr/bin:/bin"}
	if out, err := cp.CombinedOutput(); err != nil {
		t.Fatalf("documented cp: %v\n%s", err, out)
	}

	tests := []struct {
		name      string
		args      []string
		want      []string
		directive string
	}{
		{"deployments of -n", deployArgs, []string{"api", "web"}, ":4"},
		{"deployments of the other namespace", []string{"rollplan", "history", "--kubeconfig", c.Kubeconfig, "-n", other, ""}, []string{"batch"}, ":4"},
		{"deploy/ prefix", []string{"rollplan", "undo", "--kubeconfig", c.Kubeconfig, "-n", ns, "deploy/w"}, []string{"deploy/web"}, ":4"},
		{"revisions", []string{"rollplan", "undo", "deploy/web", "--kubeconfig", c.Kubeconfig, "-n", ns, "--to-revision", ""},
			[]string{"2\tnginx:1.19 (current)", "1\tnginx:1.18"}, ":36"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, directive := completions(t, bin, k, tt.args...)
			if d := cmp.Diff(tt.want, got); d != "" || directive != tt.directive {
				t.Errorf("kubectl __complete %v: directive %s (want %s), completions (-want +got):\n%s", tt.args, directive, tt.directive, d)
			}
		})
	}

	// Subcommands, with their descriptions, at the first level.
	got, _ = completions(t, bin, k, "rollplan", "")
	for _, sub := range []string{"completion", "history", "preview", "undo", "version"} {
		if !slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, sub+"\t") }) {
			t.Errorf("kubectl __complete rollplan \"\": no %s in %q", sub, got)
		}
	}
}
