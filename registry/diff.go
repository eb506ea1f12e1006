package registry

import (
	"fmt"
	"strings"
)

// maxDiffCells bounds the table of the line diff; past it the changed middle
// is shown as removed then added, which is still a correct diff.
const maxDiffCells = 4 << 20

type diffOp struct {
	kind byte // ' ', '-', '+'
	line string
}

// UnifiedDiff returns a unified diff (three lines of context) from a to b,
// labelled with the two names, or "" when they are equal. A missing file is
// an empty one.
func UnifiedDiff(nameA, nameB string, a, b []byte) string {
	if string(a) == string(b) {
		return ""
	}
	x, y := splitLines(string(a)), splitLines(string(b))
	ops := diffLines(x, y)
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", nameA, nameB)
	const ctx = 3
	// Walk the ops, emitting hunks around changes.
	i := 0
	ai, bi := 0, 0 // line numbers (0-based) at ops[i]
	for i < len(ops) {
		if ops[i].kind == ' ' {
			i, ai, bi = i+1, ai+1, bi+1
			continue
		}
		// Start of a hunk: back up ctx equal lines.
		start := i
		sa, sb2 := ai, bi
		for k := 0; k < ctx && start > 0 && ops[start-1].kind == ' '; k++ {
			start, sa, sb2 = start-1, sa-1, sb2-1
		}
		// Extend until ctx*2 equal lines in a row or the end.
		end := i
		equal := 0
		for end < len(ops) {
			if ops[end].kind == ' ' {
				equal++
				if equal > 2*ctx {
					break
				}
			} else {
				equal = 0
			}
			end++
		}
		t := 0
		for t < end-i && ops[end-1-t].kind == ' ' {
			t++
		}
		if t > ctx {
			end -= t - ctx
		}
		na, nb := 0, 0
		for _, op := range ops[start:end] {
			if op.kind != '+' {
				na++
			}
			if op.kind != '-' {
				nb++
			}
		}
		fmt.Fprintf(&sb, "@@ -%s +%s @@\n", hunkRange(sa, na), hunkRange(sb2, nb))
		for _, op := range ops[start:end] {
			sb.WriteByte(op.kind)
			sb.WriteString(op.line)
			if !strings.HasSuffix(op.line, "\n") {
				sb.WriteString("\n\\ No newline at end of file\n")
			}
		}
		for _, op := range ops[i:end] {
			if op.kind != '+' {
				ai++
			}
			if op.kind != '-' {
				bi++
			}
		}
		i = end
	}
	return sb.String()
}

func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// splitLines splits s into lines that keep their "\n".
func splitLines(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// diffLines is a longest-common-subsequence line diff of the part between
// the common prefix and suffix.
func diffLines(x, y []string) []diffOp {
	var ops []diffOp
	p := 0
	for p < len(x) && p < len(y) && x[p] == y[p] {
		ops = append(ops, diffOp{' ', x[p]})
		p++
	}
	s := 0
	for s < len(x)-p && s < len(y)-p && x[len(x)-1-s] == y[len(y)-1-s] {
		s++
	}
	mx, my := x[p:len(x)-s], y[p:len(y)-s]
	if len(mx)*len(my) > maxDiffCells {
		for _, l := range mx {
			ops = append(ops, diffOp{'-', l})
		}
		for _, l := range my {
			ops = append(ops, diffOp{'+', l})
		}
	} else {
		n, m := len(mx), len(my)
		// lcs[i][j] = LCS length of mx[i:], my[j:]
		lcs := make([][]int32, n+1)
		for i := range lcs {
			lcs[i] = make([]int32, m+1)
		}
		for i := n - 1; i >= 0; i-- {
			for j := m - 1; j >= 0; j-- {
				if mx[i] == my[j] {
					lcs[i][j] = lcs[i+1][j+1] + 1
				} else {
					lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
				}
			}
		}
		i, j := 0, 0
		for i < n || j < m {
			switch {
			case i < n && j < m && mx[i] == my[j]:
				ops = append(ops, diffOp{' ', mx[i]})
				i, j = i+1, j+1
			case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
				ops = append(ops, diffOp{'-', mx[i]})
				i++
			default:
				ops = append(ops, diffOp{'+', my[j]})
				j++
			}
		}
	}
	for k := len(x) - s; k < len(x); k++ {
		ops = append(ops, diffOp{' ', x[k]})
	}
	return ops
}
