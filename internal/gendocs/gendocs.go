package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

// page is one generated file.
type page struct {
	name string
	data []byte
}

// write replaces the pages in mdDir and manDir with those of root's tree:
// changed pages are rewritten, pages of commands that are gone removed.
func write(root *cobra.Command, mdDir, manDir string) error {
	cmds := commands(root)
	var md, man []page
	for _, c := range cmds {
		md = append(md, page{mdName(c), markdown(c)})
		man = append(man, page{manName(c), manPage(c)})
	}
	if err := sync(mdDir, ".md", md); err != nil {
		return err
	}
	return sync(manDir, ".1", man)
}

// commands returns root and every command below it that help shows, in
// the tree's order (cobra sorts subcommands by name).
func commands(root *cobra.Command) []*cobra.Command {
	out := []*cobra.Command{root}
	for _, c := range root.Commands() {
		if !c.IsAvailableCommand() || c.IsAdditionalHelpTopicCommand() {
			continue
		}
		out = append(out, commands(c)...)
	}
	return out
}

// children are the subcommands of c that have a page.
func children(c *cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	for _, s := range c.Commands() {
		if s.IsAvailableCommand() && !s.IsAdditionalHelpTopicCommand() {
			out = append(out, s)
		}
	}
	return out
}

func mdName(c *cobra.Command) string {
	return strings.ReplaceAll(c.CommandPath(), " ", "_") + ".md"
}

func manName(c *cobra.Command) string {
	return strings.ReplaceAll(c.CommandPath(), " ", "-") + ".1"
}

// sync makes dir hold exactly pages among its files ending in ext.
func sync(dir, ext string, pages []page) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	keep := map[string]bool{}
	for _, p := range pages {
		keep[p.name] = true
		file := filepath.Join(dir, p.name)
		if old, err := os.ReadFile(file); err == nil && bytes.Equal(old, p.data) {
			continue
		}
		if err := os.WriteFile(file, p.data, 0o644); err != nil {
			return err
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ext) && !keep[e.Name()] {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// description is the long help of c, or its short one.
func description(c *cobra.Command) string {
	if s := strings.TrimSpace(c.Long); s != "" {
		return s
	}
	return strings.TrimSpace(c.Short)
}

// markdown is c's page in the reference.
func markdown(c *cobra.Command) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n\n", c.CommandPath())
	fmt.Fprintf(&b, "%s\n\n", mdText(c.Short))
	if c.Long != "" {
		fmt.Fprintf(&b, "## Synopsis\n\n%s\n\n", mdText(strings.TrimSpace(c.Long)))
	}
	if c.Runnable() {
		fmt.Fprintf(&b, "```text\n%s\n```\n\n", c.UseLine())
	}
	if len(c.Aliases) > 0 {
		fmt.Fprintf(&b, "Aliases: %s\n\n", mdText(strings.Join(c.Aliases, ", ")))
	}
	if c.Example != "" {
		fmt.Fprintf(&b, "## Examples\n\n```text\n%s\n```\n\n", strings.TrimRight(c.Example, "\n "))
	}
	if fs := c.NonInheritedFlags(); fs.HasAvailableFlags() {
		fmt.Fprintf(&b, "## Options\n\n```text\n%s```\n\n", fs.FlagUsages())
	}
	if fs := c.InheritedFlags(); fs.HasAvailableFlags() {
		fmt.Fprintf(&b, "## Options inherited from parent commands\n\n```text\n%s```\n\n", fs.FlagUsages())
	}
	if subs := children(c); len(subs) > 0 {
		b.WriteString("## Commands\n\n")
		for _, s := range subs {
			fmt.Fprintf(&b, "* [%s](%s) — %s\n", s.CommandPath(), mdName(s), mdText(s.Short))
		}
		b.WriteString("\n")
	}
	if p := c.Parent(); p != nil {
		fmt.Fprintf(&b, "## See also\n\n* [%s](%s) — %s\n\n", p.CommandPath(), mdName(p), mdText(p.Short))
	}
	return append(bytes.TrimRight(b.Bytes(), "\n"), '\n')
}

// mdText escapes what Markdown would take for HTML in help text written
// as plain text (`<extensions>`, `<id>`), outside code spans.
func mdText(s string) string {
	var b strings.Builder
	code := false
	for _, r := range s {
		switch {
		case r == '`':
			code = !code
			b.WriteRune(r)
		case !code && r == '<':
			b.WriteString("&lt;")
		case !code && r == '>':
			b.WriteString("&gt;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
