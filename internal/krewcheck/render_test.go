package krewcheck

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRenderTemplateAsTheReleaseBot(t *testing.T) {
	tmpl := `spec:
  version: {{ .TagName }}
  platforms:
  - selector:
      matchLabels:
        os: linux
    {{ addURIAndSha "https://example.com/{{ .TagName }}/x_{{ .Version }}_linux.tar.gz" .TagName }}
    bin: x
  caveats: |
    {{ indent 4 "one\ntwo" }}
`
	sums := map[string]string{"https://example.com/v1.2.3/x_1.2.3_linux.tar.gz": strings.Repeat("ab", 32)}
	got, err := RenderTemplate(".krew.yaml", []byte(tmpl), TemplateValues{TagName: "v1.2.3"}, func(uri string) (string, error) {
		if s, ok := sums[uri]; ok {
			return s, nil
		}
		return "", fmt.Errorf("no asset %s", uri)
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `spec:
  version: v1.2.3
  platforms:
  - selector:
      matchLabels:
        os: linux
    uri: https://example.com/v1.2.3/x_1.2.3_linux.tar.gz
    sha256: abababababababababababababababababababababababababababababababab
    bin: x
  caveats: |
    one
    two
`
	if d := cmp.Diff(want, string(got)); d != "" {
		t.Errorf("rendered (-want +got):\n%s", d)
	}
}

func TestRenderTemplateFailsWithoutTheArchive(t *testing.T) {
	tmpl := `{{ addURIAndSha "https://example.com/{{ .TagName }}/missing.tar.gz" .TagName }}`
	_, err := RenderTemplate("t", []byte(tmpl), TemplateValues{TagName: "v1.0.0"}, LocalArchives(t.TempDir()))
	if err == nil || !strings.Contains(err.Error(), "missing.tar.gz") {
		t.Fatalf("got %v, want an error naming missing.tar.gz", err)
	}
}

// repoFile reads a file of the repository root (two levels above this package).
func repoFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestTemplateRendersAValidManifest renders krew/.krew.yaml for an arbitrary tag with made-up
// sums and checks every rule: the template itself is right whatever the release.
func TestTemplateRendersAValidManifest(t *testing.T) {
	i := 0
	rendered, err := RenderTemplate(".krew.yaml", repoFile(t, "krew/.krew.yaml"), TemplateValues{TagName: "v2.3.4-rc.1"}, func(uri string) (string, error) {
		i++
		if !strings.Contains(uri, "/v2.3.4-rc.1/kubectl-rollplan_v2.3.4-rc.1_") {
			return "", fmt.Errorf("unexpected uri %s", uri)
		}
		return strings.Repeat("ab", 30) + fmt.Sprintf("%04x", i), nil // letters: an all-digit sum would decode as a number
	})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "rollplan.yaml")
	if err := os.WriteFile(file, rendered, 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := ValidateManifestFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := ValidateRelease(p, Targets); err != nil {
		t.Fatal(err)
	}
	if i != len(Targets) || p.Spec.Version != "v2.3.4-rc.1" {
		t.Errorf("rendered %d uris, version %s", i, p.Spec.Version)
	}
}
