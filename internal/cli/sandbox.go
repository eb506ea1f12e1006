package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/spiritagents/spirit/exthost"
	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/paths"
	"github.com/spiritagents/spirit/sandbox"
)

// addSandboxCommands adds `extension permissions`, `doctor`, and the
// --sandbox flag of the commands that run extensions.
func addSandboxCommands(root *cobra.Command, f *Factory) {
	root.AddCommand(newCmdDoctor(f, nil), &cobra.Command{
		Use:                sandbox.ExecCommand + " [--ro PATH | --rw PATH | --no-network | --scope]... -- PROGRAM [ARG]...",
		Short:              "Apply Landlock and exec PROGRAM (spirit runs this itself for each extension)",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE:               func(cmd *cobra.Command, args []string) error { return sandbox.Exec(args) },
	}, &cobra.Command{
		Use:                exthost.SuperviseCommand + " PATH ARGV0 [ARG]...",
		Short:              "Run PROGRAM and end everything it spawns with it (spirit runs this itself for each extension)",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE:               func(cmd *cobra.Command, args []string) error { return exthost.Supervise(args) },
	})
	for _, c := range root.Commands() {
		switch c.Name() {
		case "extension":
			c.AddCommand(newCmdPermissions(f, nil))
			for _, sub := range c.Commands() {
				switch sub.Name() {
				case "call", "tools", "prompt", "emit":
					addSandboxFlag(sub, f)
				}
			}
		case "mcp":
			for _, sub := range c.Commands() {
				if sub.Name() == "serve" {
					addSandboxFlag(sub, f)
				}
			}
		}
	}
}

func addSandboxFlag(cmd *cobra.Command, f *Factory) {
	cmd.Flags().StringVar(&f.Global.Sandbox, "sandbox", "auto", "run extensions in the OS sandbox (auto) or, for debugging, without it (off)")
	_ = cmd.RegisterFlagCompletionFunc("sandbox", cobra.FixedCompletions([]string{"auto", "off"}, cobra.ShellCompDirectiveNoFileComp))
}

// sandboxStatus returns the sandbox this run uses: none with --sandbox=off,
// else what sandbox.Probe finds.
func sandboxStatus(ctx context.Context, f *Factory) (sandbox.Status, error) {
	switch f.Global.Sandbox {
	case "", "auto":
	case "off":
		return sandbox.Status{Kind: sandbox.KindNone, Reason: "turned off with --sandbox=off"}, nil
	default:
		return sandbox.Status{}, usageErrorf("unknown --sandbox %q: use auto or off", f.Global.Sandbox)
	}
	return sandbox.Probe(ctx, f.Getenv)
}

// extSandbox runs each extension of p in the sandbox with its grants. It
// probes the sandbox once, reads the grants at each start (so a change is
// seen by a long `mcp serve`), and says once per run on stderr when
// extensions run unconfined.
type extSandbox struct {
	f *Factory
	p *paths.Paths

	once   sync.Once
	status sandbox.Status
	err    error

	mu     sync.Mutex
	warned map[string]bool
}

func newExtSandbox(f *Factory, p *paths.Paths) *extSandbox {
	return &extSandbox{f: f, p: p, warned: map[string]bool{}}
}

// warn prints msg on stderr the first time key is seen.
func (c *extSandbox) warn(key, msg string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.warned[key] {
		return
	}
	c.warned[key] = true
	fmt.Fprintln(c.f.IO.ErrOut, "warning: "+msg)
}

// Wrap is exthost.Options.Sandbox: it rewrites cmd to run ext in the sandbox with its grants.
func (c *extSandbox) Wrap(ctx context.Context, ext *install.Installed, cmd *exec.Cmd) error {
	c.once.Do(func() { c.status, c.err = sandboxStatus(ctx, c.f) })
	if c.err != nil {
		return c.err
	}
	pol, err := install.Permissions(c.p, ext.ID)
	if err != nil {
		return err
	}
	switch {
	case c.status.Kind == sandbox.KindNone:
		c.warn("", "extensions run without a sandbox: "+c.status.Reason+"; they can read your files and spirit's secrets (see 'spirit doctor')")
	case pol.Unsandboxed:
		c.warn(ext.ID, ext.ID+" runs without a sandbox, as granted with 'spirit extension permissions "+ext.ID+" --unsandboxed'")
	}
	wd, _ := os.Getwd()
	spec := sandbox.Spec{
		ID:         ext.ID,
		Node:       cmd.Path,
		NodeArgs:   cmd.Args[1:],
		Env:        append(cmd.Env, grantedEnv(c.f.Getenv, pol.Env)...),
		PackageDir: absOr(ext.Dir),
		WorkDir:    wd,
		UserHome:   c.f.Getenv("HOME"),
		Hidden:     hiddenPaths(c.f, c.p),
		Policy:     pol,
		PrivateDir: install.PrivateDir(c.p, ext.ID),
		// NodeInfoCache is in spirit's cache, which no extension sees.
		NodeInfoCache: nodeInfoCache(c.p),
	}
	wrapped, err := c.status.Wrap(ctx, spec)
	if err != nil {
		return err
	}
	cmd.Path, cmd.Args, cmd.Env, cmd.Dir = wrapped.Path, wrapped.Args, wrapped.Env, wrapped.Dir
	// Without bubblewrap's PID namespace, what the extension spawns would
	// outlive spirit killed by SIGKILL: a supervisor of its own ends it.
	if c.status.Kind != sandbox.KindBwrap || pol.Unsandboxed {
		self, err := os.Executable()
		if err != nil {
			return fmt.Errorf("finding spirit's executable for the supervisor of %s: %w", ext.ID, err)
		}
		exthost.Supervised(cmd, self)
	}
	return nil
}

// grantedEnv returns NAME=value for each granted name set in spirit's
// environment (exec keeps the last of duplicate names).
func grantedEnv(getenv func(string) string, names []string) []string {
	var out []string
	for _, n := range names {
		if v := getenv(n); v != "" {
			out = append(out, n+"="+v)
		}
	}
	return out
}

// hiddenPaths are never visible to an extension, even under a granted
// path: the data directory (install tree, every extension's settings,
// logs, the file keyring, mcp.token) and the user's runtime directory
// (D-Bus and keyring sockets).
// Each is made absolute and also given with its links resolved, so a
// grant of the real location does not expose it either.
func hiddenPaths(f *Factory, p *paths.Paths) []string {
	var hidden []string
	for _, d := range []string{p.DataDir, f.Getenv("XDG_RUNTIME_DIR")} {
		if strings.TrimSpace(d) == "" {
			continue
		}
		abs, err := filepath.Abs(d)
		if err != nil {
			continue
		}
		hidden = append(hidden, abs)
		if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
			hidden = append(hidden, real)
		}
	}
	return hidden
}

// enoentPath finds the path of Node's "ENOENT: no such file or directory,
// open '/path'" message.
var enoentPath = regexp.MustCompile(`ENOENT: no such file or directory, \w+ '(/[^']*)'`)

// sandboxHint explains a tool failure that the sandbox caused ("" for any
// other error): Node's permission model refused, or a path that exists here
// was not found inside the sandbox.
func sandboxHint(err error) string {
	var te *exthost.ToolError
	if !errors.As(err, &te) {
		return ""
	}
	id := te.ExtensionID
	if strings.Contains(te.Message, "Access to this API has been restricted") {
		return fmt.Sprintf("the sandbox denied %s this access; see 'spirit extension permissions %s', grant a path with --allow-read PATH", id, id)
	}
	if m := enoentPath.FindStringSubmatch(te.Message); m != nil {
		if _, err := os.Stat(m[1]); err == nil {
			return fmt.Sprintf("%s exists but the sandbox hides it from %s; to grant it: spirit extension permissions %s --allow-read %s", m[1], id, id, m[1])
		}
	}
	return ""
}

// policies returns every extension's grants for list and info; a damaged
// permissions file is reported once on stderr and shows default policies.
func policies(f *Factory, p *paths.Paths) map[string]sandbox.Policy {
	all, err := install.AllPermissions(p)
	if err != nil {
		fmt.Fprintf(f.IO.ErrOut, "warning: %v\n", err)
	}
	return all
}

// nodeInfoCache is where the sandbox keeps what Node supports.
func nodeInfoCache(p *paths.Paths) string { return filepath.Join(p.CacheDir(), "node-info.json") }

// absOr is path made absolute, or path when that fails.
func absOr(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}
