package docgen

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// mdLink matches a Markdown link's target: [text](target).
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// anchor is GitHub's heading anchor: lower case, punctuation other than '-' and '_' dropped,
// spaces made '-'.
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors returns the anchors of file's headings (outside code fences).
func anchors(t *testing.T, file string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	fence := false
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "```") {
			fence = !fence
		}
		if !fence && strings.HasPrefix(line, "#") {
			out[anchor(strings.TrimLeft(line, "#"))] = true
		}
	}
	return out
}

// TestDocLinks: every relative link of README.md and docs/ names a file of the repository
// and, with a #fragment, one of its headings; the README links every hand-written page of
// docs/ (the front page is where a reader finds them).
func TestDocLinks(t *testing.T) {
	root := filepath.Join("..", "..")
	files := []string{filepath.Join(root, "README.md")}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		fence := false
		for n, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, "```") {
				fence = !fence
			}
			if fence {
				continue
			}
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				path, frag, _ := strings.Cut(target, "#")
				dest := f
				if path != "" {
					dest = filepath.Join(filepath.Dir(f), path)
					if _, err := os.Stat(dest); err != nil {
						t.Errorf("%s:%d: link %q: no such file %s", f, n+1, target, dest)
						continue
					}
				}
				if frag != "" && strings.HasSuffix(dest, ".md") && !anchors(t, dest)[frag] {
					t.Errorf("%s:%d: link %q: %s has no heading with anchor #%s", f, n+1, target, dest, frag)
				}
			}
		}
	}

	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		if link := "docs/" + filepath.Base(p); !strings.Contains(string(readme), "("+link+")") {
			t.Errorf("README.md does not link %s", link)
		}
	}
}

func TestAnchor(t *testing.T) {
	for in, want := range map[string]string{
		" Will it finish? `--checks`":             "will-it-finish---checks",
		"Many clusters: `--contexts`":             "many-clusters---contexts",
		"The RolloutPlan object (`-o json|yaml`)": "the-rolloutplan-object--o-jsonyaml",
	} {
		if got := anchor(in); got != want {
			t.Errorf("anchor(%q) = %q, want %q", in, got, want)
		}
	}
}
