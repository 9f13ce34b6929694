package krewcheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// validPlugin is a manifest that passes every rule: six platforms, as `make dist` renders them.
func validPlugin() Plugin {
	p := Plugin{
		TypeMeta:   metav1.TypeMeta{APIVersion: APIVersion, Kind: Kind},
		ObjectMeta: metav1.ObjectMeta{Name: "rollplan"},
		Spec: PluginSpec{
			Version:          "v0.1.0",
			ShortDescription: "Preview and step through Deployment rollouts before they happen",
			Description:      "rollplan reproduces the Deployment controller on the client.\n",
			Caveats:          "needs get and list on deployments\n",
			Homepage:         "https://github.com/rollplan/kubectl-rollplan",
		},
	}
	for i, t := range Targets {
		ext, exe := ".tar.gz", ""
		if t.OS == "windows" {
			ext, exe = ".zip", ".exe"
		}
		p.Spec.Platforms = append(p.Spec.Platforms, Platform{
			URI:      "https://github.com/rollplan/kubectl-rollplan/releases/download/v0.1.0/kubectl-rollplan_v0.1.0_" + t.OS + "_" + t.Arch + ext,
			Sha256:   strings.Repeat(string("0123456789abcdef"[i]), 64),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"os": t.OS, "arch": t.Arch}},
			Files: []FileOperation{
				{From: "kubectl-rollplan" + exe, To: "."},
				{From: "kubectl_complete-rollplan" + exe, To: "."},
				{From: "LICENSE", To: "."},
			},
			Bin: "kubectl-rollplan" + exe,
		})
	}
	return p
}

// checkAll runs every manifest rule, as for a file named fileName+".yaml".
func checkAll(fileName string, p Plugin) error {
	if err := ValidateIndexRules(fileName, p); err != nil {
		return err
	}
	return ValidateRelease(p, Targets)
}

func TestValidPluginPassesEveryRule(t *testing.T) {
	if err := checkAll("rollplan", validPlugin()); err != nil {
		t.Fatalf("valid manifest: %v", err)
	}
}

// TestEachRuleRejectsABrokenManifest breaks the valid manifest in one way per rule and checks
// that exactly that rule fires.
func TestEachRuleRejectsABrokenManifest(t *testing.T) {
	linuxAMD64, linuxARM64, windowsARM64 := 0, 1, 5
	tests := []struct {
		name     string
		fileName string // default "rollplan"
		mutate   func(p *Plugin)
		want     Rule
	}{
		{"old apiVersion", "", func(p *Plugin) { p.APIVersion = "krew.googlecontainertools.github.com/v1alpha1" }, RuleAPIVersion},
		{"wrong kind", "", func(p *Plugin) { p.Kind = "Plugins" }, RuleKind},
		{"windows device name", "nul", func(p *Plugin) { p.Name = "nul" }, RuleSafeName},
		{"path in name", "../rollplan", func(p *Plugin) { p.Name = "../rollplan" }, RuleSafeName},
		{"name differs from file name", "", func(p *Plugin) { p.Name = "roll-plan" }, RuleNameMatchesFile},
		{"no shortDescription", "", func(p *Plugin) { p.Spec.ShortDescription = "" }, RuleShortDescription},
		{"two-line shortDescription", "", func(p *Plugin) { p.Spec.ShortDescription = "Preview rollouts\nand drive them" }, RuleShortDescriptionLines},
		{"no platforms", "", func(p *Plugin) { p.Spec.Platforms = nil }, RulePlatformsPresent},
		{"no version", "", func(p *Plugin) { p.Spec.Version = "" }, RuleVersionPresent},
		{"version without v", "", func(p *Plugin) { p.Spec.Version = "0.1.0" }, RuleVersionSemver},
		{"version not semver", "", func(p *Plugin) { p.Spec.Version = "v0.1" }, RuleVersionSemver},
		{"no uri", "", func(p *Plugin) { p.Spec.Platforms[linuxARM64].URI = "" }, RuleURIPresent},
		{"no sha256", "", func(p *Plugin) { p.Spec.Platforms[linuxARM64].Sha256 = "" }, RuleSHA256Present},
		{"uppercase sha256", "", func(p *Plugin) { p.Spec.Platforms[linuxARM64].Sha256 = strings.Repeat("AB", 32) }, RuleSHA256Format},
		{"short sha256", "", func(p *Plugin) { p.Spec.Platforms[linuxARM64].Sha256 = strings.Repeat("ab", 31) }, RuleSHA256Format},
		{"no bin", "", func(p *Plugin) { p.Spec.Platforms[linuxARM64].Bin = "" }, RuleBinPresent},
		{"empty files", "", func(p *Plugin) { p.Spec.Platforms[linuxARM64].Files = []FileOperation{} }, RuleFilesNonEmpty},
		{"files without to", "", func(p *Plugin) { p.Spec.Platforms[linuxARM64].Files[2].To = "" }, RuleFilesFromTo},
		{"no selector", "", func(p *Plugin) { p.Spec.Platforms[linuxARM64].Selector = nil }, RuleSelectorPresent},
		{"empty selector", "", func(p *Plugin) { p.Spec.Platforms[linuxARM64].Selector = &metav1.LabelSelector{} }, RuleSelectorNonEmpty},
		{"selector key libc", "", func(p *Plugin) { p.Spec.Platforms[linuxARM64].Selector.MatchLabels["libc"] = "musl" }, RuleSelectorKeys},
		{"selector for an unsupported os", "", func(p *Plugin) {
			p.Spec.Platforms[linuxARM64].Selector.MatchLabels = map[string]string{"os": "plan9", "arch": "arm64"}
		}, RuleSelectorMatches},
		{"os-only selector overlaps linux/amd64", "", func(p *Plugin) {
			p.Spec.Platforms[linuxARM64].Selector.MatchLabels = map[string]string{"os": "linux"}
		}, RuleSelectorsOverlap},
		{"shortDescription of 71 characters", "", func(p *Plugin) { p.Spec.ShortDescription = strings.Repeat("a ", 35) + "b" }, RuleShortDescriptionLength},
		{"caveats line of 81 characters", "", func(p *Plugin) { p.Spec.Caveats = "ok\n" + strings.Repeat("abcd ", 16) + "x\n" }, RuleLineLength},
		{"selector for two platforms nobody else claims", "", func(p *Plugin) {
			p.Spec.Platforms[linuxARM64].Selector = &metav1.LabelSelector{
				MatchLabels:      map[string]string{"os": "linux"},
				MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "arch", Operator: metav1.LabelSelectorOpIn, Values: []string{"arm64", "ppc64le"}}},
			}
		}, RuleSelectorSingleTarget},
		{"no windows/arm64 archive", "", func(p *Plugin) { p.Spec.Platforms = p.Spec.Platforms[:windowsARM64] }, RulePlatformsComplete},
		{"windows bin without .exe", "", func(p *Plugin) { p.Spec.Platforms[windowsARM64].Bin = "kubectl-rollplan" }, RuleBinName},
		{"linux archive is a zip", "", func(p *Plugin) {
			p.Spec.Platforms[linuxAMD64].URI = strings.TrimSuffix(p.Spec.Platforms[linuxAMD64].URI, ".tar.gz") + ".zip"
		}, RuleURIArchive},
		{"plain http uri", "", func(p *Plugin) {
			p.Spec.Platforms[linuxAMD64].URI = "http" + strings.TrimPrefix(p.Spec.Platforms[linuxAMD64].URI, "https")
		}, RuleURIArchive},
		{"no homepage", "", func(p *Plugin) { p.Spec.Homepage = "" }, RuleDocsPresent},
		{"files left to Krew's default", "", func(p *Plugin) { p.Spec.Platforms[linuxARM64].Files = nil }, RuleFilesExplicit},
		{"files without LICENSE", "", func(p *Plugin) { p.Spec.Platforms[linuxARM64].Files = p.Spec.Platforms[linuxARM64].Files[:2] }, RuleFilesExplicit},
		{"files without the completion helper", "", func(p *Plugin) {
			f := p.Spec.Platforms[windowsARM64].Files
			p.Spec.Platforms[windowsARM64].Files = []FileOperation{f[0], f[2]}
		}, RuleFilesExplicit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := validPlugin()
			tt.mutate(&p)
			name := tt.fileName
			if name == "" {
				name = "rollplan"
			}
			err := checkAll(name, p)
			if err == nil {
				t.Fatalf("broken manifest passed; want rule %s", tt.want)
			}
			if got := RuleOf(err); got != tt.want {
				t.Fatalf("rule %q fired, want %q; error: %v", got, tt.want, err)
			}
		})
	}
}

func writeManifest(t *testing.T, dir, file string, p Plugin) string {
	t.Helper()
	b, err := yaml.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, file)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestValidateManifestFileTakesTheNameFromTheFile(t *testing.T) {
	dir := t.TempDir()
	if _, err := ValidateManifestFile(writeManifest(t, dir, "rollplan.yaml", validPlugin())); err != nil {
		t.Fatalf("rollplan.yaml: %v", err)
	}
	_, err := ValidateManifestFile(writeManifest(t, dir, "plugins.yaml", validPlugin()))
	if RuleOf(err) != RuleNameMatchesFile {
		t.Fatalf("plugins.yaml holding plugin rollplan: got %v, want rule %s", err, RuleNameMatchesFile)
	}
	_, err = ValidateManifestFile(writeManifest(t, dir, "rollplan.yml", validPlugin()))
	if RuleOf(err) != RuleManifestExtension {
		t.Fatalf("rollplan.yml: got %v, want rule %s", err, RuleManifestExtension)
	}
}

func TestDecodeRejectsUnknownFields(t *testing.T) {
	b, err := yaml.Marshal(validPlugin())
	if err != nil {
		t.Fatal(err)
	}
	typo := strings.Replace(string(b), "sha256:", "sha265:", 1)
	if _, err := DecodePlugin([]byte(typo)); err == nil || !strings.Contains(err.Error(), "sha265") {
		t.Fatalf("manifest with sha265: got %v, want an unknown-field error", err)
	}
	if _, err := DecodePlugin(b); err != nil {
		t.Fatalf("valid manifest: %v", err)
	}
}

func TestMatchPlatformPicksTheArchiveForEachTarget(t *testing.T) {
	p := validPlugin()
	for _, target := range Targets {
		pl, ok, err := MatchPlatform(p.Spec.Platforms, target)
		if err != nil || !ok {
			t.Fatalf("%s: ok=%v err=%v", target, ok, err)
		}
		if want := "_" + target.OS + "_" + target.Arch + "."; !strings.Contains(pl.URI, want) {
			t.Errorf("%s: picked %s", target, pl.URI)
		}
	}
	if _, ok, _ := MatchPlatform(p.Spec.Platforms, OSArch{"linux", "ppc64le"}); ok {
		t.Error("linux/ppc64le matched a platform; rollplan ships no such archive")
	}
}

func TestBinAndHelperNames(t *testing.T) {
	for _, tt := range []struct{ name, goos, bin, helper string }{
		{"rollplan", "linux", "kubectl-rollplan", "kubectl_complete-rollplan"},
		{"rollplan", "windows", "kubectl-rollplan.exe", "kubectl_complete-rollplan.exe"},
		{"view-secret", "darwin", "kubectl-view_secret", "kubectl_complete-view_secret"},
	} {
		if got := BinName(tt.name, tt.goos); got != tt.bin {
			t.Errorf("BinName(%s, %s) = %s, want %s", tt.name, tt.goos, got, tt.bin)
		}
		if got := CompletionHelperName(tt.name, tt.goos); got != tt.helper {
			t.Errorf("CompletionHelperName(%s, %s) = %s, want %s", tt.name, tt.goos, got, tt.helper)
		}
	}
}
