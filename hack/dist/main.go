// Command dist builds rollplan's release: for each target platform a static binary
// (CGO_ENABLED=0) of kubectl-rollplan and of its completion helper kubectl_complete-rollplan,
// packed with LICENSE into a reproducible archive (tar.gz for linux and darwin, zip for
// windows, as Krew expects), a checksums.txt in `sha256sum -c` format, and the Krew manifest
// rendered from krew/.krew.yaml with the archives' sha256 (as the Krew release bot renders it).
//
// Reproducible: the same source, Go toolchain and flags give byte-identical archives, whatever
// the checkout path or the time: binaries are built with -trimpath, -buildvcs=false and an
// empty build ID; archive entries are sorted, owned by uid/gid 0, with fixed modes and the
// modification time given by -mtime; the gzip header carries no name or time.
//
// Usage (see `make dist`):
//
//	go run ./hack/dist -version v0.1.0 -commit abc1234 -mtime 1700000000 -out dist
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/rollplan/kubectl-rollplan/internal/krewcheck"
)

const (
	pluginName = "rollplan"
	modulePath = "github.com/rollplan/kubectl-rollplan"
)

type options struct {
	version, commit string
	mtime           int64
	out             string
	platforms       string
	template        string
	manifestOut     string
	goBin           string
}

func main() {
	var o options
	flag.StringVar(&o.version, "version", "", "release version, semver with a leading v (v0.1.0); stamped into the binary and the manifest")
	flag.StringVar(&o.commit, "commit", "unknown", "git commit stamped into the binary")
	flag.Int64Var(&o.mtime, "mtime", 0, "modification time of every archive entry, Unix seconds (for example the commit time)")
	flag.StringVar(&o.out, "out", "dist", "output directory (emptied of previous archives)")
	flag.StringVar(&o.platforms, "platforms", "", "comma-separated os/arch list, or \"host\" for this machine's (default: all six targets); with a subset the manifest lists only its platforms")
	flag.StringVar(&o.template, "template", "krew/.krew.yaml", "the Krew release bot template")
	flag.StringVar(&o.manifestOut, "manifest-out", "", "also write the manifest here, with a generated-file header (make manifest: plugins.yaml)")
	flag.StringVar(&o.goBin, "go", "go", "go command")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "dist: "+err.Error())
		os.Exit(1)
	}
}

func run(o options) error {
	start := time.Now()
	if _, err := krewcheck.ParseVersion(o.version); err != nil {
		return fmt.Errorf("-version: %w (use semver with a leading v, as Krew requires)", err)
	}
	targets, err := selectTargets(o.platforms)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	if err := clean(o.out); err != nil {
		return err
	}
	license, err := os.ReadFile("LICENSE")
	if err != nil {
		return fmt.Errorf("read LICENSE (run from the repository root): %w", err)
	}
	build, err := os.MkdirTemp("", "rollplan-dist")
	if err != nil {
		return err
	}
	defer os.RemoveAll(build)

	mtime := time.Unix(o.mtime, 0).UTC()
	var sums []string
	for _, t := range targets {
		t0 := time.Now()
		dir := filepath.Join(build, t.OS+"_"+t.Arch)
		files := []krewcheck.ArchiveFile{{Name: "LICENSE", Data: license, Mode: 0o644}}
		for _, c := range []struct{ pkg, name string }{
			{"./cmd/kubectl-rollplan", krewcheck.BinName(pluginName, t.OS)},
			{"./cmd/kubectl_complete-rollplan", krewcheck.CompletionHelperName(pluginName, t.OS)},
		} {
			bin := filepath.Join(dir, c.name)
			if err := goBuild(o, t, c.pkg, bin); err != nil {
				return err
			}
			data, err := os.ReadFile(bin)
			if err != nil {
				return err
			}
			files = append(files, krewcheck.ArchiveFile{Name: c.name, Data: data, Mode: 0o755})
		}
		name := archiveName(o.version, t)
		var archive []byte
		if t.OS == "windows" {
			archive, err = krewcheck.WriteZip(files, mtime)
		} else {
			archive, err = krewcheck.WriteTarGz(files, mtime)
		}
		if err != nil {
			return fmt.Errorf("pack %s: %w", name, err)
		}
		if err := os.WriteFile(filepath.Join(o.out, name), archive, 0o644); err != nil {
			return err
		}
		sum, err := krewcheck.FileSHA256(filepath.Join(o.out, name))
		if err != nil {
			return err
		}
		sums = append(sums, sum+"  "+name+"\n")
		fmt.Fprintf(os.Stderr, "dist: %-45s %6.1f MiB  sha256 %s  (%.0fs)\n", name, float64(len(archive))/(1<<20), sum, time.Since(t0).Seconds())
	}
	slices.SortFunc(sums, func(a, b string) int { return strings.Compare(a[66:], b[66:]) })
	if err := os.WriteFile(filepath.Join(o.out, "checksums.txt"), []byte(strings.Join(sums, "")), 0o644); err != nil {
		return err
	}
	info, err := json.MarshalIndent(buildInfo{
		Version: o.version, Commit: o.commit, MTime: o.mtime, Go: goVersion(o), Platforms: targets,
	}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(o.out, "build.json"), append(info, '\n'), 0o644); err != nil {
		return err
	}
	if err := renderManifest(o, targets); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "dist: %d archives in %s, %.0fs\n", len(targets), o.out, time.Since(start).Seconds())
	return nil
}

// buildInfo is dist/build.json: the inputs of the build, so that it can be repeated and
// compared byte for byte.
type buildInfo struct {
	Version   string             `json:"version"`
	Commit    string             `json:"commit"`
	MTime     int64              `json:"mtime"`
	Go        string             `json:"go"`
	Platforms []krewcheck.OSArch `json:"platforms"`
}

func goVersion(o options) string {
	out, err := exec.Command(o.goBin, "env", "GOVERSION").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

// selectTargets parses -platforms: empty is every target, "host" is runtime.GOOS/GOARCH (make
// test builds only that one), otherwise a comma-separated os/arch list, each one of
// krewcheck.Targets. The result is in krewcheck.Targets' order.
func selectTargets(spec string) ([]krewcheck.OSArch, error) {
	switch spec {
	case "":
		return krewcheck.Targets, nil
	case "host":
		spec = runtime.GOOS + "/" + runtime.GOARCH
	}
	want := map[krewcheck.OSArch]bool{}
	for _, s := range strings.Split(spec, ",") {
		os, arch, ok := strings.Cut(strings.TrimSpace(s), "/")
		t := krewcheck.OSArch{OS: os, Arch: arch}
		if !ok || !slices.Contains(krewcheck.Targets, t) {
			return nil, fmt.Errorf("-platforms: %q is not one of %v", s, krewcheck.Targets)
		}
		want[t] = true
	}
	var out []krewcheck.OSArch
	for _, t := range krewcheck.Targets {
		if want[t] {
			out = append(out, t)
		}
	}
	return out, nil
}

// archiveName is the release asset name the template's uris use.
func archiveName(version string, t krewcheck.OSArch) string {
	ext := ".tar.gz"
	if t.OS == "windows" {
		ext = ".zip"
	}
	return fmt.Sprintf("kubectl-rollplan_%s_%s_%s%s", version, t.OS, t.Arch, ext)
}

// clean removes what a previous run left in out.
func clean(out string) error {
	ents, err := os.ReadDir(out)
	if err != nil {
		return err
	}
	for _, e := range ents {
		n := e.Name()
		if strings.HasPrefix(n, "kubectl-rollplan_") || n == "checksums.txt" || n == "build.json" || n == pluginName+krewcheck.ManifestExtension {
			if err := os.Remove(filepath.Join(out, n)); err != nil {
				return err
			}
		}
	}
	return nil
}

// goBuild builds pkg for t into bin with a fixed environment, so nothing from the caller's
// environment (GOFLAGS, GOAMD64, CGO_ENABLED ...) changes the bytes.
func goBuild(o options, t krewcheck.OSArch, pkg, bin string) error {
	ldflags := fmt.Sprintf("-s -w -buildid= -X %[1]s/pkg/cmd.version=%[2]s -X %[1]s/pkg/cmd.commit=%[3]s", modulePath, o.version, o.commit)
	cmd := exec.Command(o.goBin, "build", "-trimpath", "-buildvcs=false", "-ldflags", ldflags, "-o", bin, pkg)
	env := []string{}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GOFLAGS", "GOOS", "GOARCH", "CGO_ENABLED", "GOAMD64", "GOARM64", "GOEXPERIMENT", "GOWORK":
			continue
		}
		env = append(env, kv)
	}
	cmd.Env = append(env, "CGO_ENABLED=0", "GOOS="+t.OS, "GOARCH="+t.Arch, "GOAMD64=v1", "GOARM64=v8.0",
		"GOFLAGS=-mod=readonly", "GOWORK=off")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build %s for %s: %w", pkg, t, err)
	}
	return nil
}

// renderManifest renders the template with the archives' sha256 into out/rollplan.yaml (the file
// to submit to krew-index, named after the plugin) and, with -manifest-out, a copy with a
// generated-file header; then checks the result against Krew's rules and this project's, for
// targets. With a subset of the targets (make test builds the host's archive only) the
// template's other platforms are dropped from the manifest, which is then re-encoded: valid
// for Krew, but not the bytes of a release; -manifest-out refuses a subset.
func renderManifest(o options, targets []krewcheck.OSArch) error {
	text, err := os.ReadFile(o.template)
	if err != nil {
		return fmt.Errorf("read template: %w", err)
	}
	subset := len(targets) != len(krewcheck.Targets)
	if subset && o.manifestOut != "" {
		return fmt.Errorf("-manifest-out needs every platform: drop -platforms")
	}
	sha := krewcheck.LocalArchives(o.out)
	if subset {
		sha = func(uri string) (string, error) {
			if _, err := os.Stat(filepath.Join(o.out, path.Base(uri))); errors.Is(err, fs.ErrNotExist) {
				return strings.Repeat("0", 64), nil // a platform not built: dropped below
			}
			return krewcheck.LocalArchives(o.out)(uri)
		}
	}
	manifest, err := krewcheck.RenderTemplate(filepath.Base(o.template), text, krewcheck.TemplateValues{TagName: o.version}, sha)
	if err != nil {
		return err
	}
	if subset {
		if manifest, err = keepPlatforms(manifest, targets); err != nil {
			return err
		}
	}
	file := filepath.Join(o.out, pluginName+krewcheck.ManifestExtension)
	if err := os.WriteFile(file, manifest, 0o644); err != nil {
		return err
	}
	p, err := krewcheck.ValidateManifestFile(file)
	if err != nil {
		return fmt.Errorf("rendered manifest breaks a Krew rule: %w", err)
	}
	if err := krewcheck.ValidateRelease(p, targets); err != nil {
		return fmt.Errorf("rendered manifest breaks a release rule: %w", err)
	}
	fmt.Fprintf(os.Stderr, "dist: manifest %s (valid)\n", file)
	if o.manifestOut != "" {
		header := krewcheck.GeneratedHeader(o.version, o.commit)
		if err := os.WriteFile(o.manifestOut, append([]byte(header), manifest...), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "dist: manifest %s\n", o.manifestOut)
	}
	return nil
}

// keepPlatforms returns the manifest with only the platform entries that select one of targets.
func keepPlatforms(manifest []byte, targets []krewcheck.OSArch) ([]byte, error) {
	p, err := krewcheck.DecodePlugin(manifest)
	if err != nil {
		return nil, fmt.Errorf("rendered manifest: %w", err)
	}
	p.Spec.Platforms = slices.DeleteFunc(p.Spec.Platforms, func(pl krewcheck.Platform) bool {
		return len(krewcheck.MatchingTargets(pl.Selector, targets)) == 0
	})
	return yaml.Marshal(p)
}
