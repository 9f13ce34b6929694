package rollout

import (
	"fmt"
	"strings"
)

// DiffContext is the number of unchanged lines shown around each change, as `diff -u`.
const DiffContext = 3

// UnifiedDiff returns the unified diff of a and b (texts of lines ending in "\n"), in the
// format of GNU `diff -u` without timestamps: "--- fromName", "+++ toName", then hunks
// "@@ -l,n +l,n @@" with DiffContext lines of context. It returns "" when a == b. A text that
// does not end in a newline is treated as if it did.
//
// The edit script is a longest common subsequence of lines (O(len(a)*len(b)) time and
// memory; pod templates are a few hundred lines at most).
func UnifiedDiff(fromName, toName, a, b string) string {
	if a == b {
		return ""
	}
	x, y := splitLines(a), splitLines(b)
	ops := editScript(x, y)
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", fromName, toName)
	for _, h := range hunks(ops, DiffContext) {
		writeHunk(&sb, ops[h[0]:h[1]], x, y)
	}
	return sb.String()
}

func splitLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// diffOp is one line of the edit script: ' ' (in both), '-' (only in a) or '+' (only in b),
// with the line's index in a (for ' ' and '-') and in b (for ' ' and '+'); i and j are also
// the positions reached in a and b before the line.
type diffOp struct {
	kind byte
	i, j int
}

// editScript returns a shortest edit script from x to y by dynamic programming over the
// longest common subsequence; deletions come before insertions within a change, as in GNU
// diff output.
func editScript(x, y []string) []diffOp {
	n, m := len(x), len(y)
	// lcs[i][j] is the LCS length of x[i:] and y[j:].
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var ops []diffOp
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && x[i] == y[j]:
			ops = append(ops, diffOp{' ', i, j})
			i++
			j++
		case j == m || (i < n && lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, diffOp{'-', i, j})
			i++
		default:
			ops = append(ops, diffOp{'+', i, j})
			j++
		}
	}
	return ops
}

// hunks groups the changes of ops into hunks: [start, end) index ranges of ops with up to
// ctx unchanged lines around each change; changes separated by at most 2*ctx unchanged lines
// share a hunk.
func hunks(ops []diffOp, ctx int) [][2]int {
	var out [][2]int
	for k := 0; k < len(ops); {
		if ops[k].kind == ' ' {
			k++
			continue
		}
		start := max(0, k-ctx)
		end := k
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*ctx {
				end = min(len(ops), end+ctx)
				break
			}
			end = run
		}
		if len(out) > 0 && start < out[len(out)-1][1] {
			start = out[len(out)-1][1]
		}
		out = append(out, [2]int{start, end})
		k = end
	}
	return out
}

func writeHunk(sb *strings.Builder, ops []diffOp, x, y []string) {
	aStart, bStart := ops[0].i, ops[0].j
	var aCount, bCount int
	for _, op := range ops {
		if op.kind != '+' {
			aCount++
		}
		if op.kind != '-' {
			bCount++
		}
	}
	fmt.Fprintf(sb, "@@ -%s +%s @@\n", hunkRange(aStart, aCount), hunkRange(bStart, bCount))
	for _, op := range ops {
		switch op.kind {
		case ' ':
			sb.WriteString(" " + x[op.i] + "\n")
		case '-':
			sb.WriteString("-" + x[op.i] + "\n")
		case '+':
			sb.WriteString("+" + y[op.j] + "\n")
		}
	}
}

// hunkRange formats a hunk's range as GNU diff does: "l" for one line, "l,n" otherwise, and
// for an empty range the line before it ("0,0" at the top).
func hunkRange(start, count int) string {
	switch count {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return fmt.Sprintf("%d", start+1)
	default:
		return fmt.Sprintf("%d,%d", start+1, count)
	}
}
