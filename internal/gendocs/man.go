package main

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// manPage is c's man page (section 1), in plain roff with the man macros.
func manPage(c *cobra.Command) []byte {
	var b bytes.Buffer
	name := strings.ReplaceAll(c.CommandPath(), " ", "-")
	fmt.Fprintf(&b, ".TH %q \"1\" \"\" \"spirit\" \"spirit manual\"\n", strings.ToUpper(name))
	b.WriteString(".SH NAME\n")
	fmt.Fprintf(&b, "%s \\- %s\n", roff(name), roff(c.Short))
	if c.Runnable() {
		b.WriteString(".SH SYNOPSIS\n")
		fmt.Fprintf(&b, "\\fB%s\\fP\n", roff(c.UseLine()))
	}
	b.WriteString(".SH DESCRIPTION\n")
	for _, para := range strings.Split(description(c), "\n\n") {
		b.WriteString(".PP\n")
		lines := strings.Split(strings.Trim(para, "\n"), "\n")
		if preformatted(lines) {
			b.WriteString(".nf\n")
			for _, l := range lines {
				b.WriteString(roffLine(l) + "\n")
			}
			b.WriteString(".fi\n")
			continue
		}
		for _, l := range lines {
			b.WriteString(roffLine(strings.TrimSpace(l)) + "\n")
		}
	}
	if len(c.Aliases) > 0 {
		fmt.Fprintf(&b, ".PP\nAliases: %s\n", roff(strings.Join(c.Aliases, ", ")))
	}
	if fs := c.NonInheritedFlags(); fs.HasAvailableFlags() {
		b.WriteString(".SH OPTIONS\n")
		block(&b, fs.FlagUsages())
	}
	if fs := c.InheritedFlags(); fs.HasAvailableFlags() {
		b.WriteString(".SH OPTIONS INHERITED FROM PARENT COMMANDS\n")
		block(&b, fs.FlagUsages())
	}
	if c.Example != "" {
		b.WriteString(".SH EXAMPLES\n")
		block(&b, c.Example)
	}
	var see []*cobra.Command
	if p := c.Parent(); p != nil {
		see = append(see, p)
	}
	see = append(see, children(c)...)
	if len(see) > 0 {
		b.WriteString(".SH SEE ALSO\n")
		for i, s := range see {
			sep := ","
			if i == len(see)-1 {
				sep = ""
			}
			fmt.Fprintf(&b, "\\fB%s\\fP(1)%s\n", roff(strings.ReplaceAll(s.CommandPath(), " ", "-")), sep)
		}
	}
	return b.Bytes()
}

// preformatted: a paragraph with an indented line or a list keeps its
// lines as written.
func preformatted(lines []string) bool {
	for _, l := range lines {
		if strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t") || strings.HasPrefix(l, "- ") {
			return true
		}
	}
	return false
}

// block writes text as an indented block in no-fill mode.
func block(b *bytes.Buffer, text string) {
	b.WriteString(".PP\n.RS\n.nf\n")
	for _, l := range strings.Split(strings.TrimRight(text, "\n "), "\n") {
		b.WriteString(roffLine(l) + "\n")
	}
	b.WriteString(".fi\n.RE\n")
}

// roff escapes text for roff: backslashes and minus signs (so that
// flags copy as ASCII hyphen-minus).
func roff(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	return strings.ReplaceAll(s, "-", `\-`)
}

// roffLine is roff(s) made safe at the start of a line, where a dot or
// an apostrophe would start a request, and where blank lines would add
// vertical space in fill mode only as a paragraph.
func roffLine(s string) string {
	s = roff(s)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}
