package krewcheck

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/version"
)

// Rule names one check. Every error this package returns for a broken manifest or archive is a
// *RuleError naming the rule it breaks, so a test can tell which rule fired.
type Rule string

// Krew's structural rules: ValidatePlugin, validatePlatform, validateFiles and validateSelector in
// sigs.k8s.io/krew internal/index/validation (v0.4.x). Krew refuses to install a manifest that
// breaks one of them.
const (
	RuleAPIVersion            Rule = "apiVersion"
	RuleKind                  Rule = "kind"
	RuleSafeName              Rule = "safe-name"
	RuleNameMatchesFile       Rule = "name-matches-file"
	RuleShortDescription      Rule = "short-description-present"
	RuleShortDescriptionLines Rule = "short-description-one-line"
	RulePlatformsPresent      Rule = "platforms-present"
	RuleVersionPresent        Rule = "version-present"
	RuleVersionSemver         Rule = "version-semver"
	RuleURIPresent            Rule = "uri-present"
	RuleSHA256Present         Rule = "sha256-present"
	RuleSHA256Format          Rule = "sha256-format"
	RuleBinPresent            Rule = "bin-present"
	RuleFilesNonEmpty         Rule = "files-non-empty"
	RuleFilesFromTo           Rule = "files-from-and-to"
	RuleSelectorPresent       Rule = "selector-present"
	RuleSelectorNonEmpty      Rule = "selector-non-empty"
	RuleSelectorKeys          Rule = "selector-keys"
)

// The rules krew-index's CI adds with validate-krew-manifest (sigs.k8s.io/krew
// cmd/validate-krew-manifest): a manifest file named after its plugin, every platform used, no
// os/arch claimed twice, a license installed. RuleLineLength and RuleShortDescriptionLength are
// warnings there; they are errors here.
const (
	RuleManifestExtension      Rule = "manifest-extension"
	RuleSelectorMatches        Rule = "selector-matches-a-supported-platform"
	RuleSelectorsOverlap       Rule = "selectors-do-not-overlap"
	RuleShortDescriptionLength Rule = "short-description-length"
	RuleLineLength             Rule = "line-length"
	RuleLicenseInstalled       Rule = "license-installed"
)

// This project's release rules, stricter than Krew: they hold for every manifest `make dist`
// renders.
const (
	// Each platform entry selects exactly one os/arch: one archive per target.
	RuleSelectorSingleTarget Rule = "selector-single-target"
	// Every target in Targets has a platform entry.
	RulePlatformsComplete Rule = "platforms-complete"
	// bin is kubectl-<name>, with .exe on Windows (Krew links bin as kubectl-<name>[.exe]).
	RuleBinName Rule = "bin-name"
	// uri is https and ends in .tar.gz (linux, darwin) or .zip (windows).
	RuleURIArchive Rule = "uri-archive"
	// homepage and description are set.
	RuleDocsPresent Rule = "homepage-and-description-present"
	// files is explicit and names the binary, the completion helper and LICENSE.
	RuleFilesExplicit Rule = "files-explicit"
)

// The rules that need the archive itself (CheckArchive): what Krew checks while installing.
const (
	RuleArchiveSHA256       Rule = "archive-sha256"
	RuleArchiveType         Rule = "archive-type"
	RuleArchivePaths        Rule = "archive-paths"
	RuleFilesMatchArchive   Rule = "files-match-archive"
	RuleBinInArchive        Rule = "bin-in-archive"
	RuleCompletionInstalled Rule = "completion-helper-installed"
)

// RuleError is a manifest or archive that breaks Rule.
type RuleError struct {
	Rule Rule
	Err  error
}

func (e *RuleError) Error() string { return fmt.Sprintf("%s: %v", e.Rule, e.Err) }
func (e *RuleError) Unwrap() error { return e.Err }

func broken(r Rule, format string, args ...any) error {
	return &RuleError{Rule: r, Err: fmt.Errorf(format, args...)}
}

// RuleOf returns the rule err breaks, or "" when err is not a *RuleError.
func RuleOf(err error) Rule {
	var re *RuleError
	if errors.As(err, &re) {
		return re.Rule
	}
	return ""
}

// OSArch is one platform, as GOOS/GOARCH.
type OSArch struct {
	OS   string `json:"os"`
	Arch string `json:"arch"`
}

func (p OSArch) String() string { return p.OS + "/" + p.Arch }

// SupportedPlatforms are the os/arch pairs Krew's index validation knows (allPlatforms in
// cmd/validate-krew-manifest). A platform selector must match at least one of them.
var SupportedPlatforms = []OSArch{
	{"windows", "386"}, {"windows", "amd64"}, {"windows", "arm64"},
	{"linux", "386"}, {"linux", "amd64"}, {"linux", "arm"}, {"linux", "arm64"}, {"linux", "ppc64le"},
	{"darwin", "386"}, {"darwin", "amd64"}, {"darwin", "arm64"},
}

// Targets are the six platforms rollplan ships archives for.
var Targets = []OSArch{
	{"linux", "amd64"}, {"linux", "arm64"},
	{"darwin", "amd64"}, {"darwin", "arm64"},
	{"windows", "amd64"}, {"windows", "arm64"},
}

var (
	safeNameRE = regexp.MustCompile(`^[\w-]+$`)
	sha256RE   = regexp.MustCompile(`^[a-f0-9]{64}$`)
	// Device names Windows reserves: a plugin cannot be named after one.
	windowsReserved = []string{"CON", "PRN", "AUX", "NUL",
		"COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8", "COM9",
		"LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9"}
)

// IsSafePluginName reports whether name can be a plugin name: word characters and dashes, and
// not a reserved Windows device name. Mirrors IsSafePluginName, krew internal/index/validation.
func IsSafePluginName(name string) bool {
	if !safeNameRE.MatchString(name) {
		return false
	}
	for _, r := range windowsReserved {
		if strings.EqualFold(r, name) {
			return false
		}
	}
	return true
}

// ParseVersion parses a plugin version: semantic versioning with a leading "v" ("v1.2.3",
// "v0.1.0-rc.1"). Mirrors krew internal/installation/semver.Parse.
func ParseVersion(s string) (*version.Version, error) {
	if !strings.HasPrefix(s, "v") {
		return nil, fmt.Errorf("version %q does not start with 'v'", s)
	}
	return version.ParseSemantic(s)
}

// ValidatePlugin checks the structure of manifest p expected to be named name, the first broken
// rule wins. Mirrors ValidatePlugin, krew internal/index/validation (v0.4.x).
func ValidatePlugin(name string, p Plugin) error {
	if p.APIVersion != APIVersion {
		return broken(RuleAPIVersion, "apiVersion is %q, Krew supports only %q", p.APIVersion, APIVersion)
	}
	if p.Kind != Kind {
		return broken(RuleKind, "kind is %q, Krew supports only %q", p.Kind, Kind)
	}
	if !IsSafePluginName(name) {
		return broken(RuleSafeName, "plugin name %q is not allowed: it must match %s and not be a Windows device name", name, safeNameRE)
	}
	if p.Name != name {
		return broken(RuleNameMatchesFile, "metadata.name is %q, the plugin must be named %q", p.Name, name)
	}
	if p.Spec.ShortDescription == "" {
		return broken(RuleShortDescription, "spec.shortDescription is empty")
	}
	if strings.ContainsAny(p.Spec.ShortDescription, "\r\n") {
		return broken(RuleShortDescriptionLines, "spec.shortDescription has a line break: it must be one line")
	}
	if len(p.Spec.Platforms) == 0 {
		return broken(RulePlatformsPresent, "spec.platforms is empty")
	}
	if p.Spec.Version == "" {
		return broken(RuleVersionPresent, "spec.version is empty")
	}
	if _, err := ParseVersion(p.Spec.Version); err != nil {
		return broken(RuleVersionSemver, "spec.version: %v", err)
	}
	for i, pl := range p.Spec.Platforms {
		if err := validatePlatform(pl); err != nil {
			return fmt.Errorf("spec.platforms[%d]: %w", i, err)
		}
	}
	return nil
}

// validatePlatform mirrors validatePlatform, krew internal/index/validation.
func validatePlatform(p Platform) error {
	if p.URI == "" {
		return broken(RuleURIPresent, "uri is empty")
	}
	if p.Sha256 == "" {
		return broken(RuleSHA256Present, "sha256 is empty")
	}
	if !sha256RE.MatchString(p.Sha256) {
		return broken(RuleSHA256Format, "sha256 %q is not 64 lowercase hex digits", p.Sha256)
	}
	if p.Bin == "" {
		return broken(RuleBinPresent, "bin is empty")
	}
	if err := validateFiles(p.Files); err != nil {
		return err
	}
	return validateSelector(p.Selector)
}

// validateFiles mirrors validateFiles: files is either absent (Krew then copies everything) or
// non-empty, and every operation has from and to.
func validateFiles(ops []FileOperation) error {
	if ops == nil {
		return nil
	}
	if len(ops) == 0 {
		return broken(RuleFilesNonEmpty, "files is empty: leave it out or list operations")
	}
	for i, op := range ops {
		if op.From == "" || op.To == "" {
			return broken(RuleFilesFromTo, "files[%d] needs both from and to, has from=%q to=%q", i, op.From, op.To)
		}
	}
	return nil
}

// validateSelector mirrors validateSelector: a selector is set, not empty, and uses only the
// keys "os" and "arch".
func validateSelector(sel *metav1.LabelSelector) error {
	if sel == nil {
		return broken(RuleSelectorPresent, "selector is missing")
	}
	if len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0 {
		return broken(RuleSelectorNonEmpty, "selector is empty: it would match every platform")
	}
	var keys []string
	for k := range sel.MatchLabels {
		keys = append(keys, k)
	}
	for _, e := range sel.MatchExpressions {
		keys = append(keys, e.Key)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if k != "os" && k != "arch" {
			return broken(RuleSelectorKeys, "selector key %q is not supported: use os and arch", k)
		}
	}
	if sel.MatchLabels != nil && len(sel.MatchLabels) == 0 {
		return broken(RuleSelectorNonEmpty, "selector.matchLabels is set but empty")
	}
	if sel.MatchExpressions != nil && len(sel.MatchExpressions) == 0 {
		return broken(RuleSelectorNonEmpty, "selector.matchExpressions is set but empty")
	}
	return nil
}

// SelectorMatches reports whether sel selects os/arch p, as Krew matches a platform (a label
// set {os, arch}). A selector that does not compile matches nothing.
func SelectorMatches(sel *metav1.LabelSelector, p OSArch) bool {
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return false
	}
	return s.Matches(labels.Set{"os": p.OS, "arch": p.Arch})
}

// MatchingTargets returns the platforms among candidates that sel selects, in candidates' order.
func MatchingTargets(sel *metav1.LabelSelector, candidates []OSArch) []OSArch {
	var out []OSArch
	for _, c := range candidates {
		if SelectorMatches(sel, c) {
			out = append(out, c)
		}
	}
	return out
}

// ValidateManifestFile reads the manifest at path and checks it as krew-index's CI does
// (validate-krew-manifest, without its install step): the file is <plugin name>.yaml, the
// structural rules of ValidatePlugin hold, every platform selects a supported os/arch, and no
// supported os/arch is selected by two platforms. It also fails the two warnings that tool
// prints (shortDescription over 70 characters, lines over 80 in description or caveats).
func ValidateManifestFile(file string) (Plugin, error) {
	p, err := ReadPluginFile(file)
	if err != nil {
		return Plugin{}, err
	}
	base := filepath.Base(file)
	if ext := filepath.Ext(base); ext != ManifestExtension {
		return p, broken(RuleManifestExtension, "%s: a manifest file must end in %q, not %q", file, ManifestExtension, ext)
	}
	if err := ValidateIndexRules(strings.TrimSuffix(base, ManifestExtension), p); err != nil {
		return p, fmt.Errorf("%s: %w", file, err)
	}
	return p, nil
}

// ValidateIndexRules is ValidateManifestFile for a manifest already read, named name.
func ValidateIndexRules(name string, p Plugin) error {
	if err := ValidatePlugin(name, p); err != nil {
		return err
	}
	if n := len(p.Spec.ShortDescription); n > 70 {
		return broken(RuleShortDescriptionLength, "spec.shortDescription is %d characters, at most 70", n)
	}
	for _, f := range []struct{ field, text string }{{"description", p.Spec.Description}, {"caveats", p.Spec.Caveats}} {
		if line, ok := longLine(f.text, 80); !ok {
			return broken(RuleLineLength, "spec.%s has a line over 80 characters: %q", f.field, line)
		}
	}
	for i, pl := range p.Spec.Platforms {
		if len(MatchingTargets(pl.Selector, SupportedPlatforms)) == 0 {
			return broken(RuleSelectorMatches, "spec.platforms[%d]: selector %v matches no platform Krew supports", i, metav1.FormatLabelSelector(pl.Selector))
		}
	}
	for _, env := range SupportedPlatforms {
		var idx []int
		for i, pl := range p.Spec.Platforms {
			if SelectorMatches(pl.Selector, env) {
				idx = append(idx, i)
			}
		}
		if len(idx) > 1 {
			return broken(RuleSelectorsOverlap, "spec.platforms %v all select %s: Krew would install only the first", idx, env)
		}
	}
	return nil
}

// longLine returns the first line of s longer than max that has a space in it (a single long
// word such as a URL is allowed), as validateLineLength in cmd/validate-krew-manifest.
func longLine(s string, max int) (string, bool) {
	for _, line := range strings.Split(s, "\n") {
		if len(line) > max && strings.Contains(strings.TrimSpace(line), " ") {
			return line, false
		}
	}
	return "", true
}

// BinName is the executable Krew links for plugin name on os: kubectl-<name> with dashes turned
// to underscores, plus ".exe" on Windows (pluginNameToBin, krew internal/installation).
func BinName(name, goos string) string {
	bin := "kubectl-" + strings.ReplaceAll(name, "-", "_")
	if goos == "windows" {
		bin += ".exe"
	}
	return bin
}

// CompletionHelperName is the executable kubectl (>= 1.26) runs to complete the arguments of
// plugin name: kubectl_complete-<name> (plugin_completion.go, k8s.io/kubectl pkg/cmd/plugin),
// plus ".exe" on Windows.
func CompletionHelperName(name, goos string) string {
	h := "kubectl_complete-" + strings.ReplaceAll(name, "-", "_")
	if goos == "windows" {
		h += ".exe"
	}
	return h
}

// ValidateRelease checks this project's release rules on top of ValidateIndexRules: every
// target in targets has exactly one platform entry that selects it and nothing else, bin is the
// name Krew links, the uri is an https archive of the kind the os expects, homepage and
// description are set, and files lists the binary, the completion helper and LICENSE.
func ValidateRelease(p Plugin, targets []OSArch) error {
	if err := ValidateIndexRules(p.Name, p); err != nil {
		return err
	}
	if p.Spec.Homepage == "" || p.Spec.Description == "" {
		return broken(RuleDocsPresent, "spec.homepage and spec.description must be set (homepage=%q)", p.Spec.Homepage)
	}
	covered := map[OSArch]bool{}
	for i, pl := range p.Spec.Platforms {
		m := MatchingTargets(pl.Selector, SupportedPlatforms)
		if len(m) != 1 {
			return broken(RuleSelectorSingleTarget, "spec.platforms[%d]: selector %v selects %v; each archive is built for one os/arch, so select exactly one", i, metav1.FormatLabelSelector(pl.Selector), m)
		}
		t := m[0]
		covered[t] = true
		if want := BinName(p.Name, t.OS); pl.Bin != want {
			return broken(RuleBinName, "spec.platforms[%d] (%s): bin is %q, want %q", i, t, pl.Bin, want)
		}
		wantExt := ".tar.gz"
		if t.OS == "windows" {
			wantExt = ".zip"
		}
		if !strings.HasPrefix(pl.URI, "https://") || !strings.HasSuffix(pl.URI, wantExt) {
			return broken(RuleURIArchive, "spec.platforms[%d] (%s): uri %q must be https and end in %s", i, t, pl.URI, wantExt)
		}
		if pl.Files == nil {
			return broken(RuleFilesExplicit, "spec.platforms[%d] (%s): files is not set; list the binary, %s and LICENSE", i, t, CompletionHelperName(p.Name, t.OS))
		}
		for _, want := range []string{pl.Bin, CompletionHelperName(p.Name, t.OS), "LICENSE"} {
			if !slices.ContainsFunc(pl.Files, func(op FileOperation) bool { return path.Clean(op.From) == want }) {
				return broken(RuleFilesExplicit, "spec.platforms[%d] (%s): files does not install %s", i, t, want)
			}
		}
	}
	for _, t := range targets {
		if !covered[t] {
			return broken(RulePlatformsComplete, "no platform entry for %s", t)
		}
	}
	return nil
}
