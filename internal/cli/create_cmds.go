package cli

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/spiritagents/spirit/internal/build"
	"github.com/spiritagents/spirit/internal/scaffold"
	"github.com/spiritagents/spirit/internal/termtext"
)

// CreateOptions are the inputs of `spirit extension create`.
type CreateOptions struct {
	f           *Factory
	Dir         string
	Name        string
	DisplayName string
	Template    string
	Hosts       string
	// Set records which flags were given, so a terminal asks only for the others.
	NameSet, DisplayNameSet, TemplateSet, HostsSet bool
}

func newCmdCreate(f *Factory, runF func(*CreateOptions) error) *cobra.Command {
	opts := &CreateOptions{f: f}
	cmd := &cobra.Command{
		Use:   "create [DIR]",
		Short: "Start a new extension package",
		Long: `Write a new extension package into DIR (default: the current directory), which
must be missing or empty. The package passes "spirit extension validate --strict"
as written: package.json with spiritExtension, an ES module index.js whose
activate(ctx) returns working handlers, a README for marketplace readers, a
.gitignore and a "files" list so that npm publishes only what is needed.

Templates:
  tools   one tool, greet, that uses its arguments and ctx.log (the default)
  prompt  a system prompt contribution
  full    a tool, a system prompt, a setting read with ctx.settings.get,
          a secret slot read with ctx.secrets.get, and dispose

At a terminal, the values not given as flags are asked for; otherwise the
defaults apply: the name is the folder's name, the display name is made from
the name, and both hosts are supported.`,
		Example: `  spirit extension create my-ext
  spirit extension create ./weather --name @acme/weather --template full
  spirit extension create --template prompt --host cli --display-name "House style"`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = "."
			if len(args) == 1 {
				opts.Dir = args[0]
			}
			fl := cmd.Flags()
			opts.NameSet, opts.DisplayNameSet = fl.Changed("name"), fl.Changed("display-name")
			opts.TemplateSet, opts.HostsSet = fl.Changed("template"), fl.Changed("host")
			if runF != nil {
				return runF(opts)
			}
			return runCreate(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Name, "name", "", "package name, the extension id (default: the folder name)")
	fl.StringVar(&opts.DisplayName, "display-name", "", "name shown to users (default: made from the name)")
	fl.StringVar(&opts.Template, "template", string(scaffold.Tools), "what the package contributes: tools, prompt or full")
	// This --host shadows the global one: here it is the list of hosts the
	// new package supports, not the install tree to use.
	fl.StringVar(&opts.Hosts, "host", "cli,desktop", "hosts the extension supports: cli, desktop or cli,desktop")
	_ = cmd.RegisterFlagCompletionFunc("template", cobra.FixedCompletions([]string{"tools", "prompt", "full"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("host", cobra.FixedCompletions([]string{"cli", "desktop", "cli,desktop"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func runCreate(opts *CreateOptions) error {
	f := opts.f
	abs, err := filepath.Abs(opts.Dir)
	if err != nil {
		return err
	}
	if !opts.NameSet {
		opts.Name = filepath.Base(abs)
	}
	if f.IO.CanPrompt() {
		if err := askCreate(f, opts); err != nil {
			return err
		}
	}
	tmpl, err := scaffold.ParseTemplate(opts.Template)
	if err != nil {
		return usageErrorf("--template: %v", err)
	}
	hosts, err := scaffold.ParseHosts(opts.Hosts)
	if err != nil {
		return usageErrorf("--host: %v", err)
	}
	sopts := scaffold.Options{Name: strings.TrimSpace(opts.Name), DisplayName: opts.DisplayName, Template: tmpl, Hosts: hosts,
		SpiritVersion: build.String()}
	names, err := scaffold.Write(opts.Dir, sopts)
	var ne *scaffold.InvalidNameError
	switch {
	case errors.As(err, &ne):
		hint := "choose a lowercase npm package name, such as my-ext or @scope/my-ext"
		if !opts.NameSet {
			hint = "the name defaults to the folder's name; pass --name with a lowercase npm package name, such as my-ext or @scope/my-ext"
		}
		return withHint(err, hint)
	case errors.Is(err, scaffold.ErrNotEmpty):
		return withHint(err, "choose a new or empty directory: spirit extension create NEW-DIR")
	case err != nil:
		return err
	}
	id := sopts.Name
	termtext.Fprintf(f.IO.ErrOut, "Created %s (%s template) in %s: %s\n", id, tmpl, opts.Dir, strings.Join(names, ", "))
	dev := shellQuote(opts.Dir)
	first := fmt.Sprintf("spirit extension call %s/greet --dev %s --args '{\"name\":\"Ada\"}'", id, dev)
	if tmpl == scaffold.Prompt {
		first = "spirit extension prompt --dev " + dev
	}
	termtext.Fprintf(f.IO.ErrOut, "\nNext:\n  %s\n  spirit extension validate --activate %s\n  spirit extension pack %s\n", first, dev, dev)
	return nil
}

// askCreate asks at the terminal for the values not given as flags; an
// empty answer keeps the default shown.
func askCreate(f *Factory, opts *CreateOptions) error {
	ask := func(set bool, label string, v *string) error {
		if set {
			return nil
		}
		line, err := f.IO.Prompter().Input("%s [%s]: ", label, *v)
		if err != nil {
			return err
		}
		if s := strings.TrimSpace(line); s != "" {
			*v = s
		}
		return nil
	}
	if err := ask(opts.NameSet, "Package name", &opts.Name); err != nil {
		return err
	}
	if !opts.DisplayNameSet {
		opts.DisplayName = scaffold.DefaultDisplayName(opts.Name)
	}
	if err := ask(opts.DisplayNameSet, "Display name", &opts.DisplayName); err != nil {
		return err
	}
	if err := ask(opts.TemplateSet, "Template (tools, prompt, full)", &opts.Template); err != nil {
		return err
	}
	return ask(opts.HostsSet, "Hosts (cli, desktop, cli,desktop)", &opts.Hosts)
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("@%+=:,./-_", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
