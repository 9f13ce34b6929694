package krewcheck

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

var testTime = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// host is the platform the tests install for; the fake plugin is a shell script, so the install
// tests that run it need a POSIX host.
var host = OSArch{runtime.GOOS, runtime.GOARCH}

func skipOnWindows(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake plugin is a shell script")
	}
}

// fakeRelease writes a tar.gz with a fake kubectl-rollplan (a script printing "rollplan
// v0.1.0"), the completion helper and LICENSE, and returns a one-platform manifest for host that
// installs it, and the archive's path.
func fakeRelease(t *testing.T, files []ArchiveFile) (Plugin, string) {
	t.Helper()
	if files == nil {
		files = []ArchiveFile{
			{Name: "kubectl-rollplan", Data: []byte("#!/bin/sh\necho rollplan v0.1.0 \"$@\"\n"), Mode: 0o755},
			{Name: "kubectl_complete-rollplan", Data: []byte("#!/bin/sh\necho complete\n"), Mode: 0o755},
			{Name: "LICENSE", Data: []byte("Apache License\n"), Mode: 0o644},
			{Name: "README.md", Data: []byte("not installed\n"), Mode: 0o644},
		}
	}
	b, err := WriteTarGz(files, testTime)
	if err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(t.TempDir(), "kubectl-rollplan_v0.1.0_"+host.OS+"_"+host.Arch+".tar.gz")
	if err := os.WriteFile(archive, b, 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := FileSHA256(archive)
	if err != nil {
		t.Fatal(err)
	}
	p := validPlugin()
	p.Spec.Platforms = []Platform{{
		URI:      "https://example.invalid/" + filepath.Base(archive),
		Sha256:   sum,
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"os": host.OS, "arch": host.Arch}},
		Files: []FileOperation{
			{From: "kubectl-rollplan", To: "."},
			{From: "kubectl_complete-rollplan", To: "."},
			{From: "LICENSE", To: "."},
		},
		Bin: "kubectl-rollplan",
	}}
	return p, archive
}

func install(t *testing.T, root string, p Plugin, archive string) error {
	t.Helper()
	return Install(Paths{Root: root}, p, InstallOptions{Archive: archive, Env: host, IndexName: "detached", Now: testTime})
}

func TestInstallLaysOutKrewRootAsKrewDoes(t *testing.T) {
	skipOnWindows(t)
	p, archive := fakeRelease(t, nil)
	root := t.TempDir()
	if err := install(t, root, p, archive); err != nil {
		t.Fatal(err)
	}

	// store/<name>/<version>/ holds exactly what files selected (not README.md), modes kept.
	store := filepath.Join(root, "store", "rollplan", "v0.1.0")
	ents, err := os.ReadDir(store)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		fi, _ := e.Info()
		got = append(got, e.Name()+" "+fi.Mode().Perm().String())
	}
	want := []string{"LICENSE -rw-r--r--", "kubectl-rollplan -rwxr-xr-x", "kubectl_complete-rollplan -rwxr-xr-x"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("store contents (-want +got):\n%s", d)
	}

	// bin/kubectl-rollplan is a relative symlink to the installed bin, and runs it.
	link := filepath.Join(root, "bin", "kubectl-rollplan")
	target, err := os.Readlink(link)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join("..", "store", "rollplan", "v0.1.0", "kubectl-rollplan"); target != want {
		t.Errorf("bin link -> %s, want %s", target, want)
	}
	out, err := exec.Command(link, "version").Output()
	if err != nil || string(out) != "rollplan v0.1.0 version\n" {
		t.Errorf("running the linked bin: %q, %v", out, err)
	}
	// Krew links nothing but bin.
	if ents, _ := os.ReadDir(filepath.Join(root, "bin")); len(ents) != 1 {
		t.Errorf("bin/ has %d entries, want only kubectl-rollplan", len(ents))
	}

	// receipts/<name>.yaml is the manifest plus its source.
	b, err := os.ReadFile(filepath.Join(root, "receipts", "rollplan.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var r Receipt
	if err := yaml.UnmarshalStrict(b, &r); err != nil {
		t.Fatalf("decode receipt: %v\n%s", err, b)
	}
	if d := cmp.Diff(p.Spec, r.Spec); d != "" {
		t.Errorf("receipt spec (-manifest +receipt):\n%s", d)
	}
	if r.Name != "rollplan" || r.Status.Source.Name != "detached" || !r.CreationTimestamp.Time.Equal(testTime) {
		t.Errorf("receipt name=%q source=%q created=%v", r.Name, r.Status.Source.Name, r.CreationTimestamp)
	}
}

func TestInstallVerifiesSHA256BeforeExtracting(t *testing.T) {
	p, archive := fakeRelease(t, nil)
	p.Spec.Platforms[0].Sha256 = strings.Repeat("0", 64)
	root := t.TempDir()
	err := install(t, root, p, archive)
	if RuleOf(err) != RuleArchiveSHA256 {
		t.Fatalf("got %v, want rule %s", err, RuleArchiveSHA256)
	}
	if ents, _ := os.ReadDir(root); len(ents) != 0 {
		t.Errorf("a refused archive left %d entries in KREW_ROOT", len(ents))
	}

	// One flipped byte in the archive is refused too.
	p, archive = fakeRelease(t, nil)
	b, _ := os.ReadFile(archive)
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(archive, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := install(t, t.TempDir(), p, archive); RuleOf(err) != RuleArchiveSHA256 {
		t.Fatalf("tampered archive: got %v, want rule %s", err, RuleArchiveSHA256)
	}
}

func TestInstallTwiceIsRefused(t *testing.T) {
	skipOnWindows(t)
	p, archive := fakeRelease(t, nil)
	root := t.TempDir()
	if err := install(t, root, p, archive); err != nil {
		t.Fatal(err)
	}
	if err := install(t, root, p, archive); !errors.Is(err, ErrAlreadyInstalled) {
		t.Fatalf("second install: %v, want ErrAlreadyInstalled", err)
	}
}

func TestInstallWithoutAPlatformForThisHost(t *testing.T) {
	p, archive := fakeRelease(t, nil)
	err := Install(Paths{Root: t.TempDir()}, p, InstallOptions{Archive: archive, Env: OSArch{"plan9", "386"}})
	if err == nil || !strings.Contains(err.Error(), "does not offer installation for plan9/386") {
		t.Fatalf("got %v", err)
	}
}

func TestInstallFailsWhenFilesDoNotMatchTheArchive(t *testing.T) {
	skipOnWindows(t)
	p, archive := fakeRelease(t, nil)
	p.Spec.Platforms[0].Files = append(p.Spec.Platforms[0].Files, FileOperation{From: "docs/*", To: "docs"})
	if err := install(t, t.TempDir(), p, archive); RuleOf(err) != RuleFilesMatchArchive {
		t.Fatalf("glob matching nothing: got %v, want rule %s", err, RuleFilesMatchArchive)
	}

	p, archive = fakeRelease(t, nil)
	p.Spec.Platforms[0].Bin = "bin/kubectl-rollplan"
	if err := install(t, t.TempDir(), p, archive); RuleOf(err) != RuleBinInArchive {
		t.Fatalf("bin not installed: got %v, want rule %s", err, RuleBinInArchive)
	}

	p, archive = fakeRelease(t, nil)
	p.Spec.Platforms[0].Bin = "../../../kubectl-rollplan"
	if err := install(t, t.TempDir(), p, archive); RuleOf(err) != RuleBinInArchive {
		t.Fatalf("bin outside the install dir: got %v, want rule %s", err, RuleBinInArchive)
	}
}

// rawTarGz writes tar entries as given, unlike WriteTarGz.
func rawTarGz(t *testing.T, hdrs ...*tar.Header) string {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, h := range hdrs {
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Size > 0 {
			tw.Write(bytes.Repeat([]byte("x"), int(h.Size)))
		}
	}
	tw.Close()
	gz.Close()
	path := filepath.Join(t.TempDir(), "a.tar.gz")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestExtractionRefusesWhatKrewRefuses(t *testing.T) {
	tests := []struct {
		name    string
		archive func(t *testing.T) string
		want    Rule
	}{
		{"dot-dot entry", func(t *testing.T) string {
			return rawTarGz(t, &tar.Header{Name: "../kubectl-rollplan", Mode: 0o755, Size: 1, Typeflag: tar.TypeReg})
		}, RuleArchivePaths},
		{"absolute entry", func(t *testing.T) string {
			return rawTarGz(t, &tar.Header{Name: "/etc/kubectl-rollplan", Mode: 0o755, Size: 1, Typeflag: tar.TypeReg})
		}, RuleArchivePaths},
		{"symlink entry", func(t *testing.T) string {
			return rawTarGz(t, &tar.Header{Name: "kubectl-rollplan", Linkname: "/bin/sh", Typeflag: tar.TypeSymlink})
		}, RuleArchivePaths},
		{"not an archive", func(t *testing.T) string {
			path := filepath.Join(t.TempDir(), "a.tar.gz")
			os.WriteFile(path, []byte("#!/bin/sh\necho hi\n"), 0o644)
			return path
		}, RuleArchiveType},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			archive := tt.archive(t)
			p, _ := fakeRelease(t, nil)
			sum, _ := FileSHA256(archive)
			p.Spec.Platforms[0].Sha256 = sum
			if err := install(t, t.TempDir(), p, archive); RuleOf(err) != tt.want {
				t.Fatalf("got %v, want rule %s", err, tt.want)
			}
		})
	}
}

func TestCheckArchive(t *testing.T) {
	skipOnWindows(t)
	good := []ArchiveFile{
		{Name: "kubectl-rollplan", Data: []byte("#!/bin/sh\n"), Mode: 0o755},
		{Name: "kubectl_complete-rollplan", Data: []byte("#!/bin/sh\n"), Mode: 0o755},
		{Name: "LICENSE", Data: []byte("Apache License\n"), Mode: 0o644},
	}
	p, archive := fakeRelease(t, good)
	if err := CheckArchive("rollplan", p.Spec.Platforms[0], host, archive); err != nil {
		t.Fatalf("good archive: %v", err)
	}

	without := func(name string) []ArchiveFile {
		var out []ArchiveFile
		for _, f := range good {
			if f.Name != name {
				out = append(out, f)
			}
		}
		return out
	}
	noExec := append(without("kubectl-rollplan"), ArchiveFile{Name: "kubectl-rollplan", Data: []byte("#!/bin/sh\n"), Mode: 0o644})
	tests := []struct {
		name  string
		files []ArchiveFile
		ops   func(p *Platform)
		want  Rule
	}{
		{"no completion helper in the archive", without("kubectl_complete-rollplan"), func(p *Platform) { p.Files = []FileOperation{{From: "*", To: "."}} }, RuleCompletionInstalled},
		{"LICENSE not installed", good, func(p *Platform) { p.Files = p.Files[:2] }, RuleLicenseInstalled},
		{"bin not executable", noExec, nil, RuleBinInArchive},
		{"bin missing", without("kubectl-rollplan"), func(p *Platform) { p.Files = p.Files[1:] }, RuleBinInArchive},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, archive := fakeRelease(t, tt.files)
			if tt.ops != nil {
				tt.ops(&p.Spec.Platforms[0])
			}
			if err := CheckArchive("rollplan", p.Spec.Platforms[0], host, archive); RuleOf(err) != tt.want {
				t.Fatalf("got %v, want rule %s", err, tt.want)
			}
		})
	}
}
