package rollout

import (
	"bytes"
	"math/rand"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// applyUnified applies a unified diff produced by UnifiedDiff to a, checking every context
// and removed line, and returns the result.
func applyUnified(t *testing.T, a, diff string) string {
	t.Helper()
	if diff == "" {
		return a
	}
	src := splitLines(a)
	lines := strings.Split(strings.TrimSuffix(diff, "\n"), "\n")
	var out []string
	pos := 0
	for i := 2; i < len(lines); {
		h := lines[i]
		var aStart, aCount, bStart, bCount int
		parseRange := func(s string) (int, int) {
			start, count, ok := strings.Cut(s, ",")
			n, _ := strconv.Atoi(start)
			c := 1
			if ok {
				c, _ = strconv.Atoi(count)
			}
			return n, c
		}
		f := strings.Fields(h)
		if len(f) != 4 || f[0] != "@@" {
			t.Fatalf("bad hunk header %q", h)
		}
		aStart, aCount = parseRange(f[1][1:])
		bStart, bCount = parseRange(f[2][1:])
		_ = bStart
		from := aStart - 1
		if aCount == 0 {
			from = aStart
		}
		out = append(out, src[pos:from]...)
		pos = from
		i++
		var seenA, seenB int
		for i < len(lines) && !strings.HasPrefix(lines[i], "@@") {
			l := lines[i]
			switch l[0] {
			case ' ':
				if src[pos] != l[1:] {
					t.Fatalf("context %q != %q", l[1:], src[pos])
				}
				out = append(out, l[1:])
				pos++
				seenA++
				seenB++
			case '-':
				if src[pos] != l[1:] {
					t.Fatalf("removed %q != %q", l[1:], src[pos])
				}
				pos++
				seenA++
			case '+':
				out = append(out, l[1:])
				seenB++
			}
			i++
		}
		if seenA != aCount || seenB != bCount {
			t.Fatalf("hunk %q has %d/%d lines", h, seenA, seenB)
		}
	}
	out = append(out, src[pos:]...)
	if len(out) == 0 {
		return ""
	}
	return strings.Join(out, "\n") + "\n"
}

func TestUnifiedDiffApplies(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	words := []string{"a", "b", "c", "d", "e"}
	gen := func() string {
		var b strings.Builder
		for n := r.Intn(30); n > 0; n-- {
			b.WriteString(words[r.Intn(len(words))] + "\n")
		}
		return b.String()
	}
	for i := 0; i < 500; i++ {
		a, b := gen(), gen()
		d := UnifiedDiff("a", "b", a, b)
		if (d == "") != (a == b) {
			t.Fatalf("diff of %q and %q: %q", a, b, d)
		}
		if got := applyUnified(t, a, d); got != b {
			t.Fatalf("applying the diff of\n%q to\n%q gives\n%q\ndiff:\n%s", a, b, got, d)
		}
	}
}

// TestUnifiedDiffMatchesGNUDiff compares with `diff -u` where the edit is unambiguous.
func TestUnifiedDiffMatchesGNUDiff(t *testing.T) {
	if _, err := exec.LookPath("diff"); err != nil {
		t.Skip("no diff(1) on this machine")
	}
	var long []string
	for i := 0; i < 20; i++ {
		long = append(long, "line"+strconv.Itoa(i))
	}
	mod := append([]string{}, long...)
	mod[2] = "changed2"
	mod[15] = "changed15"
	mod = append(mod[:8], mod[9:]...)
	cases := [][2]string{
		{"x\n", "y\n"},
		{"", "a\nb\n"},
		{"a\nb\n", ""},
		{strings.Join(long, "\n") + "\n", strings.Join(mod, "\n") + "\n"},
		{strings.Join(long, "\n") + "\n", "first\n" + strings.Join(long, "\n") + "\nlast\n"},
	}
	for _, c := range cases {
		got := UnifiedDiff("A", "B", c[0], c[1])
		want := gnuDiff(t, c[0], c[1])
		if got != want {
			t.Errorf("diff of %q and %q:\ngot:\n%s\nwant:\n%s", c[0], c[1], got, want)
		}
	}
}

func gnuDiff(t *testing.T, a, b string) string {
	t.Helper()
	dir := t.TempDir()
	write := func(name, s string) string {
		p := dir + "/" + name
		if err := writeFile(p, s); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cmd := exec.Command("diff", "-u", "--label", "A", "--label", "B", write("a", a), write("b", b))
	var out bytes.Buffer
	cmd.Stdout = &out
	_ = cmd.Run()
	return out.String()
}
