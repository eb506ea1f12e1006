// Package doctest runs the shell examples of the documentation
// (README.md and docs/**/*.md, not the generated docs/reference) as a
// test, so that no example can rot: TestDocs in this package. The rules
// a document follows are in CONTRIBUTING.md ("Examples in the docs"):
//
//   - a ```sh block runs, with bash -e -o pipefail, and must exit 0;
//   - a ```console block is a transcript: each `$ ` line (with its `\`
//     continuation lines) runs, and the lines after it, up to the next
//     `$ ` line, are its expected output (stdout and stderr as a terminal
//     shows them); `…` in a line matches any text, a line that is only
//     `…` any number of lines; a last line `(exit N)` expects exit
//     status N, otherwise 0 is expected;
//   - every other block (```text, ```json, ```yaml, ```go …) never runs.
//
// This file holds the parsing and matching; doctest_test.go the running.
package doctest

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Block is one fenced code block that runs.
type Block struct {
	File string // relative to the repository
	Line int    // of the opening fence, 1-based
	Lang string // "sh" or "console"
	Body string // the lines between the fences
}

// Where names the block in failures.
func (b Block) Where() string { return fmt.Sprintf("%s:%d", b.File, b.Line) }

var fenceRE = regexp.MustCompile("^( *)(```+|~~~+)[ \t]*([^` \t]*)")

// Blocks returns the ```sh and ```console blocks of a Markdown document.
// A fence may be indented (inside a list item); the indent is removed
// from the block's lines.
func Blocks(file, text string) ([]Block, error) {
	var out []Block
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		m := fenceRE.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		indent, fence, lang := len(m[1]), m[2], m[3]
		start := i
		var body []string
		closed := false
		for i++; i < len(lines); i++ {
			l := lines[i]
			if t := strings.TrimLeft(l, " "); strings.HasPrefix(t, fence) && strings.TrimSpace(strings.TrimLeft(t, fence[:1])) == "" {
				closed = true
				break
			}
			n := len(l) - len(strings.TrimLeft(l, " "))
			body = append(body, l[min(n, indent):])
		}
		if !closed {
			return nil, fmt.Errorf("%s:%d: the code block is not closed", file, start+1)
		}
		if lang == "sh" || lang == "console" {
			out = append(out, Block{File: file, Line: start + 1, Lang: lang, Body: strings.Join(body, "\n") + "\n"})
		}
	}
	return out, nil
}

// Step is one command of a console block and what it should print.
type Step struct {
	Line    int    // of its `$ ` line in the document
	Command string // continuation lines joined as bash reads them
	Want    []string
	Exit    int
}

var exitRE = regexp.MustCompile(`^\(exit (\d+)\)$`)

// Steps splits a console block into its commands.
func Steps(b Block) ([]Step, error) {
	var out []Step
	lines := strings.Split(strings.TrimRight(b.Body, "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		cmd, ok := strings.CutPrefix(l, "$ ")
		if !ok {
			if len(out) == 0 {
				return nil, fmt.Errorf("%s: a console block starts with a `$ ` line, not %q", b.Where(), l)
			}
			out[len(out)-1].Want = append(out[len(out)-1].Want, l)
			continue
		}
		s := Step{Line: b.Line + 1 + i, Command: cmd}
		for strings.HasSuffix(s.Command, `\`) && i+1 < len(lines) {
			i++
			s.Command += "\n" + lines[i]
		}
		out = append(out, s)
	}
	for i := range out {
		s := &out[i]
		for len(s.Want) > 0 && strings.TrimSpace(s.Want[len(s.Want)-1]) == "" {
			s.Want = s.Want[:len(s.Want)-1]
		}
		if n := len(s.Want); n > 0 {
			if m := exitRE.FindStringSubmatch(strings.TrimSpace(s.Want[n-1])); m != nil {
				s.Exit, _ = strconv.Atoi(m[1])
				s.Want = s.Want[:n-1]
			}
		}
	}
	return out, nil
}

// Match reports whether output (a command's stdout and stderr) is what
// want shows: line by line, trailing blanks ignored, `…` matching any
// text within a line and a line of only `…` any number of lines.
func Match(want []string, output string) bool {
	got := strings.Split(strings.TrimRight(output, "\n"), "\n")
	if strings.TrimSpace(output) == "" {
		got = nil
	}
	for i := range got {
		got[i] = strings.TrimRight(got[i], " \t")
	}
	pats := make([]*regexp.Regexp, len(want))
	for i, w := range want {
		w = strings.TrimRight(w, " \t")
		if w == "…" {
			continue
		}
		parts := strings.Split(w, "…")
		for j := range parts {
			parts[j] = regexp.QuoteMeta(parts[j])
		}
		pats[i] = regexp.MustCompile("^" + strings.Join(parts, ".*") + "$")
	}
	return matchLines(pats, got)
}

// matchLines matches lines against patterns; a nil pattern is a `…` line.
func matchLines(pats []*regexp.Regexp, lines []string) bool {
	if len(pats) == 0 {
		return len(lines) == 0
	}
	if pats[0] == nil {
		for k := 0; k <= len(lines); k++ {
			if matchLines(pats[1:], lines[k:]) {
				return true
			}
		}
		return false
	}
	return len(lines) > 0 && pats[0].MatchString(lines[0]) && matchLines(pats[1:], lines[1:])
}
