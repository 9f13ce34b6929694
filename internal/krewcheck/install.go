package krewcheck

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// Paths is the layout of a KREW_ROOT (krew internal/environment.Paths):
//
//	bin/kubectl-<name>                 symlink to the installed bin
//	receipts/<name>.yaml               what was installed, from where
//	store/<name>/<version>/...         the installed files
type Paths struct {
	Root string
}

// BinPath is the directory users put on PATH.
func (p Paths) BinPath() string { return filepath.Join(p.Root, "bin") }

// PluginInstallPath is the store directory of plugin name, all versions.
func (p Paths) PluginInstallPath(name string) string { return filepath.Join(p.Root, "store", name) }

// PluginVersionInstallPath is where version of plugin name is installed.
func (p Paths) PluginVersionInstallPath(name, version string) string {
	return filepath.Join(p.PluginInstallPath(name), version)
}

// PluginInstallReceiptPath is the receipt of plugin name.
func (p Paths) PluginInstallReceiptPath(name string) string {
	return filepath.Join(p.Root, "receipts", name+".yaml")
}

// ErrAlreadyInstalled is Install's answer when a receipt for the plugin exists (Krew:
// ErrIsAlreadyInstalled).
var ErrAlreadyInstalled = errors.New("can't install, the newest version is already installed")

// MatchPlatform returns the first platform whose selector selects env, as Krew picks the archive
// to install (GetMatchingPlatform, krew internal/installation/platform.go).
func MatchPlatform(platforms []Platform, env OSArch) (Platform, bool, error) {
	for _, pl := range platforms {
		if _, err := metav1.LabelSelectorAsSelector(pl.Selector); err != nil {
			return Platform{}, false, fmt.Errorf("compile platform selector: %w", err)
		}
		if SelectorMatches(pl.Selector, env) {
			return pl, true, nil
		}
	}
	return Platform{}, false, nil
}

// InstallOptions are the inputs `kubectl krew install --manifest=M --archive=A` takes from its
// flags and environment.
type InstallOptions struct {
	// Archive is the local archive to install instead of downloading the platform's uri (krew's
	// --archive). Required: nothing is downloaded here.
	Archive string
	// Env is the platform to install for (runtime.GOOS/GOARCH, or KREW_OS/KREW_ARCH).
	Env OSArch
	// IndexName is recorded in the receipt; Krew records "detached" for --manifest installs.
	IndexName string
	// Now stamps the receipt's creationTimestamp.
	Now time.Time
}

// Install installs plugin p into paths the way `kubectl krew install` does (Install and install,
// krew internal/installation/install.go, v0.4.x):
//  1. refuse if a receipt exists;
//  2. pick the platform that matches o.Env;
//  3. read the archive, verifying its sha256 against the manifest before anything is extracted;
//  4. extract it (tar.gz or zip, chosen by content, refusing absolute or ".." entries) into a
//     staging directory;
//  5. apply the platform's files operations into store/<name>/<version>;
//  6. link bin/kubectl-<name> (relative symlink) to the platform's bin;
//  7. write receipts/<name>.yaml.
//
// Errors name the step that failed; a sha256 mismatch is a *RuleError with RuleArchiveSHA256.
func Install(paths Paths, p Plugin, o InstallOptions) error {
	receiptPath := paths.PluginInstallReceiptPath(p.Name)
	if _, err := os.Stat(receiptPath); err == nil {
		return ErrAlreadyInstalled
	} else if !os.IsNotExist(err) {
		return fmt.Errorf("look up receipt %s: %w", receiptPath, err)
	}
	pl, ok, err := MatchPlatform(p.Spec.Platforms, o.Env)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("plugin %q does not offer installation for %s", p.Name, o.Env)
	}
	installDir := paths.PluginVersionInstallPath(p.Name, p.Spec.Version)
	if err := installPlatform(pl, o.Archive, installDir); err != nil {
		return fmt.Errorf("install %s %s for %s: %w", p.Name, p.Spec.Version, o.Env, err)
	}
	binPath := filepath.Join(installDir, filepath.FromSlash(pl.Bin))
	if err := linkBin(paths.BinPath(), binPath, BinName(p.Name, o.Env.OS)); err != nil {
		return fmt.Errorf("link installed plugin: %w", err)
	}
	r := Receipt{Plugin: p, Status: ReceiptStatus{Source: SourceIndex{Name: o.IndexName}}}
	r.CreationTimestamp = metav1.NewTime(o.Now)
	b, err := yaml.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode receipt: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(receiptPath), 0o755); err != nil {
		return fmt.Errorf("create receipts directory: %w", err)
	}
	if err := os.WriteFile(receiptPath, b, 0o644); err != nil {
		return fmt.Errorf("write receipt: %w", err)
	}
	return nil
}

// installPlatform verifies and extracts archive into a staging directory and moves the files of
// pl into installDir; it checks that pl.Bin ends up inside installDir as a file.
func installPlatform(pl Platform, archive, installDir string) error {
	if archive == "" {
		return errors.New("no archive given: this installer reads a local archive (krew --archive) and downloads nothing")
	}
	data, err := readVerified(archive, pl.Sha256)
	if err != nil {
		return err
	}
	staging, err := os.MkdirTemp("", "krewcheck-downloads")
	if err != nil {
		return fmt.Errorf("create staging directory: %w", err)
	}
	defer os.RemoveAll(staging)
	if err := extractArchive(staging, data); err != nil {
		return err
	}
	ops := pl.Files
	if ops == nil { // Krew's default: everything
		ops = []FileOperation{{From: "*", To: "."}}
	}
	if err := moveToInstallDir(staging, installDir, ops); err != nil {
		return err
	}
	binPath := filepath.Join(installDir, filepath.FromSlash(pl.Bin))
	if !isSubPath(installDir, binPath) {
		return broken(RuleBinInArchive, "bin %q points outside the installation directory", pl.Bin)
	}
	fi, err := os.Stat(binPath)
	if err != nil || !fi.Mode().IsRegular() {
		return broken(RuleBinInArchive, "bin %q is not in the installed files (check files and the archive)", pl.Bin)
	}
	return nil
}

// readVerified reads the archive and checks its sha256 against want, as Krew's sha256Verifier.
func readVerified(archive, want string) ([]byte, error) {
	data, err := os.ReadFile(archive)
	if err != nil {
		return nil, fmt.Errorf("read archive: %w", err)
	}
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != want {
		return nil, broken(RuleArchiveSHA256, "%s: checksum does not match the manifest: want %s, got %s", filepath.Base(archive), want, got)
	}
	return data, nil
}

// extractArchive extracts a zip or gzipped tar, detected by content as Krew does
// (http.DetectContentType), into dst.
func extractArchive(dst string, data []byte) error {
	mime := strings.Split(http.DetectContentType(data), ";")[0]
	switch mime {
	case "application/zip":
		return extractZIP(dst, data)
	case "application/x-gzip":
		return extractTARGZ(dst, data)
	default:
		return broken(RuleArchiveType, "archive is %s: Krew extracts only application/zip and application/x-gzip", mime)
	}
}

func suspiciousPath(name string) error {
	if strings.Contains(name, "..") {
		return broken(RuleArchivePaths, "archive entry %q contains \"..\"", name)
	}
	if strings.HasPrefix(name, "/") || strings.HasPrefix(name, `\`) {
		return broken(RuleArchivePaths, "archive entry %q is absolute", name)
	}
	return nil
}

func extractZIP(dst string, data []byte) error {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return broken(RuleArchiveType, "read zip: %v", err)
	}
	for _, f := range zr.File {
		if err := suspiciousPath(f.Name); err != nil {
			return err
		}
		target := filepath.Join(dst, filepath.FromSlash(f.Name))
		if f.FileInfo().IsDir() {
			if err := os.MkdirAll(target, 0o755); err != nil {
				return fmt.Errorf("extract zip: %w", err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return fmt.Errorf("extract zip: %w", err)
		}
		rc, err := f.Open()
		if err != nil {
			return fmt.Errorf("extract zip entry %s: %w", f.Name, err)
		}
		err = writeFile(target, rc, f.Mode().Perm())
		rc.Close()
		if err != nil {
			return fmt.Errorf("extract zip entry %s: %w", f.Name, err)
		}
	}
	return nil
}

func extractTARGZ(dst string, data []byte) error {
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return broken(RuleArchiveType, "read gzip: %v", err)
	}
	defer gz.Close()
	tr := tar.NewReader(gz)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return broken(RuleArchiveType, "read tar: %v", err)
		}
		if hdr.Name == "pax_global_header" {
			continue
		}
		if err := suspiciousPath(hdr.Name); err != nil {
			return err
		}
		target := filepath.Join(dst, filepath.FromSlash(hdr.Name))
		switch hdr.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, fs.FileMode(hdr.Mode).Perm()|0o700); err != nil {
				return fmt.Errorf("extract tar: %w", err)
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return fmt.Errorf("extract tar: %w", err)
			}
			if err := writeFile(target, tr, fs.FileMode(hdr.Mode).Perm()); err != nil {
				return fmt.Errorf("extract tar entry %s: %w", hdr.Name, err)
			}
		default: // Krew refuses symlinks and every other entry type
			return broken(RuleArchivePaths, "tar entry %q has type %q: Krew extracts only files and directories", hdr.Name, string(hdr.Typeflag))
		}
	}
}

func writeFile(path string, r io.Reader, mode fs.FileMode) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

type move struct{ from, to string }

// moveToInstallDir applies ops to the files extracted in src, into a fresh directory that then
// becomes installDir (moveToInstallDir, krew internal/installation/move.go).
func moveToInstallDir(src, installDir string, ops []FileOperation) error {
	if err := os.MkdirAll(filepath.Dir(installDir), 0o755); err != nil {
		return fmt.Errorf("create store directory: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(installDir), ".krewcheck-move")
	if err != nil {
		return fmt.Errorf("create move directory: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fmt.Errorf("chmod move directory: %w", err)
	}
	for i, op := range ops {
		moves, err := findMoveTargets(src, tmp, op)
		if err != nil {
			return fmt.Errorf("files[%d] (from %q to %q): %w", i, op.From, op.To, err)
		}
		for _, m := range moves {
			if err := os.MkdirAll(filepath.Dir(m.to), 0o755); err != nil {
				return fmt.Errorf("files[%d]: %w", i, err)
			}
			if err := os.Rename(m.from, m.to); err != nil {
				return fmt.Errorf("files[%d]: %w", i, err)
			}
		}
	}
	if err := os.RemoveAll(installDir); err != nil {
		return fmt.Errorf("clear %s: %w", installDir, err)
	}
	if err := os.Rename(tmp, installDir); err != nil {
		return fmt.Errorf("move files into %s: %w", installDir, err)
	}
	return nil
}

// findMoveTargets resolves one operation: a From naming an existing file moves that file (to
// To, or to its own name when To is "."); otherwise From is a glob whose matches move into the
// directory To. A glob that matches nothing fails, as in Krew. Every source and target must stay
// inside its base directory.
func findMoveTargets(fromDir, toDir string, op FileOperation) ([]move, error) {
	if op.To != filepath.Clean(op.To) {
		return nil, fmt.Errorf("to %q is not clean, write %q", op.To, filepath.Clean(op.To))
	}
	from := filepath.Clean(filepath.Join(fromDir, filepath.FromSlash(op.From)))
	if fi, err := os.Stat(from); err == nil && !fi.IsDir() {
		to := op.To
		if filepath.Clean(to) == "." {
			to = filepath.Base(from)
		}
		m := move{from: from, to: filepath.Join(toDir, filepath.FromSlash(to))}
		if !isSubPath(fromDir, m.from) || !isSubPath(toDir, m.to) {
			return nil, broken(RuleArchivePaths, "move %s -> %s leaves the archive or the installation directory", m.from, m.to)
		}
		return []move{m}, nil
	}
	matches, err := filepath.Glob(filepath.Join(fromDir, filepath.FromSlash(op.From)))
	if err != nil {
		return nil, fmt.Errorf("bad glob: %w", err)
	}
	if len(matches) == 0 {
		return nil, broken(RuleFilesMatchArchive, "no file in the archive matches %q", op.From)
	}
	newDir := filepath.Join(toDir, filepath.FromSlash(op.To))
	var moves []move
	for _, src := range matches {
		m := move{from: src, to: filepath.Join(newDir, filepath.Base(src))}
		if !isSubPath(fromDir, m.from) || !isSubPath(toDir, m.to) {
			return nil, broken(RuleArchivePaths, "move %s -> %s leaves the archive or the installation directory", m.from, m.to)
		}
		moves = append(moves, m)
	}
	return moves, nil
}

func isSubPath(base, p string) bool {
	rel, err := filepath.Rel(base, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// linkBin replaces binDir/linkName with a relative symlink to target, as createOrUpdateLink in
// krew internal/installation/install.go; it refuses to replace a file that is not a symlink.
func linkBin(binDir, target, linkName string) error {
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		return err
	}
	dst := filepath.Join(binDir, linkName)
	if fi, err := os.Lstat(dst); err == nil {
		if fi.Mode()&os.ModeSymlink == 0 {
			return fmt.Errorf("%s exists and is not a symlink: remove it first", dst)
		}
		if err := os.Remove(dst); err != nil {
			return err
		}
	}
	if _, err := os.Stat(target); err != nil {
		return fmt.Errorf("bin %s is not in the installed files: %w", target, err)
	}
	rel, err := filepath.Rel(binDir, target)
	if err != nil {
		return err
	}
	return os.Symlink(rel, dst)
}

// CheckArchive checks the archive of one platform as installing it would: its sha256 matches
// the manifest, it is a zip or tar.gz with safe paths, every files operation matches something,
// and after the operations the bin, the completion helper and a LICENSE are installed. name is
// the plugin name; t the platform the entry is for. The archive is extracted into a temporary
// directory that is removed afterwards.
func CheckArchive(name string, pl Platform, t OSArch, archive string) error {
	dir, err := os.MkdirTemp("", "krewcheck-archive")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	installDir := filepath.Join(dir, "store", name, "check")
	if err := installPlatform(pl, archive, installDir); err != nil {
		return err
	}
	if t.OS != "windows" {
		fi, err := os.Stat(filepath.Join(installDir, filepath.FromSlash(pl.Bin)))
		if err != nil || fi.Mode().Perm()&0o111 == 0 {
			return broken(RuleBinInArchive, "bin %q is not executable", pl.Bin)
		}
	}
	helper := CompletionHelperName(name, t.OS)
	if fi, err := os.Stat(filepath.Join(installDir, helper)); err != nil || (t.OS != "windows" && fi.Mode().Perm()&0o111 == 0) {
		return broken(RuleCompletionInstalled, "%s is not installed as an executable next to the bin", helper)
	}
	if err := LicenseInstalled(installDir); err != nil {
		return err
	}
	return nil
}

// licenseNames are the file names validate-krew-manifest accepts as a license (lower-cased).
var licenseNames = map[string]bool{
	"license": true, "license.txt": true, "license.md": true,
	"licenses": true, "licenses.txt": true, "licenses.md": true,
	"copying": true, "copying.txt": true,
}

// LicenseInstalled checks that a license file is among the regular files under dir, as
// validateLicenseFileExists in krew cmd/validate-krew-manifest.
func LicenseInstalled(dir string) error {
	var names []string
	found := false
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			names = append(names, d.Name())
			if licenseNames[strings.ToLower(d.Name())] {
				found = true
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("walk %s: %w", dir, err)
	}
	if !found {
		return broken(RuleLicenseInstalled, "no LICENSE among the installed files %v", names)
	}
	return nil
}
