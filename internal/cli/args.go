package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/spiritagents/spirit/internal/suggest"
)

// applyArgRules gives every command of the tree below root argument errors
// that say what is wrong: a command that only groups others answers an
// unknown word with "did you mean" at any level of the tree, and a command
// whose arguments do not fit names the missing or extra one from its Use
// line. Commands added later get the same rules, because this runs once on
// the whole tree.
func applyArgRules(root *cobra.Command) {
	// cobra answers a bare root on its own (help) only when the root cannot
	// run; with a RunE that shows help, the root's arguments are checked
	// like every group's.
	if root.RunE == nil && root.Run == nil {
		root.RunE = func(c *cobra.Command, args []string) error { return c.Help() }
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.SuggestionsMinimumDistance = 2
		for _, sub := range c.Commands() {
			walk(sub)
		}
		if c.HasSubCommands() {
			c.Args = func(c *cobra.Command, args []string) error {
				if len(args) == 0 {
					return nil
				}
				return unknownCommand(root, c, args[0])
			}
			return
		}
		if c.Args == nil {
			return
		}
		check := c.Args
		c.Args = func(c *cobra.Command, args []string) error {
			if err := check(c, args); err != nil {
				return argsError(c, args, err)
			}
			return nil
		}
	}
	walk(root)
}

// unknownCommand is the usage error for word typed after group, with the
// closest commands of the whole tree as suggestions.
func unknownCommand(root, group *cobra.Command, word string) error {
	msg := fmt.Sprintf("unknown command %q for %q", word, group.CommandPath())
	if s := suggestCommands(root, group, word); len(s) > 0 {
		return &hinted{&usageError{fmt.Errorf("%s", msg)}, "did you mean " + strings.Join(s, " or ") + "?"}
	}
	return &hinted{&usageError{fmt.Errorf("%s", msg)}, fmt.Sprintf("%s has these subcommands: %s", group.CommandPath(), subcommandNames(group))}
}

// suggestCommands lists the commands whose name is close to word (cobra's
// distance rule): the group's own subcommands first, else any command of
// the tree, by full path.
func suggestCommands(root, group *cobra.Command, word string) []string {
	var own []string
	for _, name := range group.SuggestionsFor(word) {
		own = append(own, fmt.Sprintf("%q", group.CommandPath()+" "+name))
	}
	if len(own) > 0 {
		return own
	}
	var all []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, name := range c.SuggestionsFor(word) {
			all = append(all, fmt.Sprintf("%q", c.CommandPath()+" "+name))
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	slices.Sort(all)
	return slices.Compact(all)
}

// argsError turns cobra's "accepts 1 arg(s), received 0" into a message
// that names the argument, taken from the command's Use line
// ("remove ID", "set ID KEY VALUE", "create [DIR]", "install SOURCE...").
func argsError(c *cobra.Command, args []string, err error) error {
	required, most, variadic := useArgs(c.Use)
	usage := "usage: " + c.CommandPath()
	if fields := strings.Fields(c.Use); len(fields) > 1 {
		usage += " " + strings.Join(fields[1:], " ")
	}
	switch {
	case len(args) < len(required):
		return &hinted{usageErrorf("missing %s", required[len(args)]), usage}
	case !variadic && len(required) > 0 && len(args) > most:
		return &hinted{usageErrorf("unexpected argument %q", args[most]), usage}
	}
	return &hinted{&usageError{err}, usage}
}

// useArgs reads a Use line: the names of its required arguments, how many
// argument words it has in all (optional ones included; "[flags]" is not
// one), and whether its last argument may repeat.
func useArgs(use string) (required []string, most int, variadic bool) {
	fields := strings.Fields(use)
	for _, f := range fields[min(1, len(fields)):] {
		if f == "[flags]" || strings.HasPrefix(f, "-") {
			continue
		}
		most++
		if strings.HasSuffix(f, "...") || strings.HasSuffix(f, "…") {
			variadic = true
		}
		if !strings.HasPrefix(f, "[") {
			required = append(required, strings.TrimRight(f, ".…"))
		}
	}
	return required, most, variadic
}

// flagError is the usage error for a flag cobra could not parse; an
// unknown flag gets the closest flags of the command (its own and the
// global ones) as "did you mean", as an unknown command does.
func flagError(c *cobra.Command, err error) error {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return &usageError{err}
	}
	var names []string
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	slices.Sort(names)
	s := suggest.Closest(name, slices.Compact(names), 2)
	if len(s) == 0 {
		return &hinted{&usageError{err}, "see the flags with: " + c.CommandPath() + " --help"}
	}
	for i := range s {
		s[i] = "--" + s[i]
	}
	return &hinted{&usageError{err}, "did you mean " + strings.Join(s, " or ") + "?"}
}
