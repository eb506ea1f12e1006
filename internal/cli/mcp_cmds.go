package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/spiritagents/spirit/exthost"
	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/internal/build"
	"github.com/spiritagents/spirit/internal/iostreams"
	"github.com/spiritagents/spirit/internal/termtext"
	"github.com/spiritagents/spirit/mcp"
	"github.com/spiritagents/spirit/paths"
)

// addMCPCommands adds the mcp command group to the root.
func addMCPCommands(root *cobra.Command, f *Factory) {
	cmd := &cobra.Command{
		Use:   "mcp <command>",
		Short: "Serve installed extensions to any agent over the Model Context Protocol",
		Args:  cobra.NoArgs,
		RunE:  groupRunE,
	}
	cmd.AddCommand(newCmdMCPServe(f, nil))
	root.AddCommand(cmd)
}

// Transports of `spirit mcp serve`.
const (
	transportStdio = "stdio"
	transportHTTP  = "http"
)

// MCPServeOptions are the inputs of `spirit mcp serve`.
type MCPServeOptions struct {
	IO        *iostreams.IOStreams
	Paths     func() (*paths.Paths, error)
	Getenv    func(string) string
	Transport string
	Listen    string
	Timeout   time.Duration
	Yes       bool
	// IdleTimeout stops an extension's process after that long without a
	// call; zero keeps it until the server stops.
	IdleTimeout time.Duration
	// Dev are the --dev package directories, served as if installed and
	// watched for edits.
	Dev []string
	// Sandbox makes the sandbox for the extensions; nil runs them unconfined.
	Sandbox func(*paths.Paths) *extSandbox

	// ready, when set, is told the HTTP address once it listens (tests).
	ready func(addr string)
}

func newCmdMCPServe(f *Factory, runF func(*MCPServeOptions) error) *cobra.Command {
	opts := &MCPServeOptions{IO: f.IO, Paths: f.Paths, Getenv: f.Getenv,
		Sandbox: func(p *paths.Paths) *extSandbox { return newExtSandbox(f, p) }}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the tools of installed extensions as an MCP server",
		Long: `Serve the tools of the installed extensions of the chosen host (--host cli or
desktop) as a Model Context Protocol server, so that any MCP client (Spirit Agent,
Circle, Claude Code, Cursor…) can call them.

Tools keep their model-facing invocation names. Calls run through spirit's
extension runtime: arguments are checked against the tool's inputSchema, each
call has a timeout, a cancelled request cancels the tool, and secret values
are masked. Tools that need approval or an execution note ask the user through
MCP elicitation. The extensions' system prompts are sent as the server's
instructions. Installs and removes while the server runs are announced with
notifications/tools/list_changed.

With --dev DIR the package in DIR is served as if installed (nothing is
written into the install tree); an edit under DIR restarts it at its next use,
and a changed tool list is announced with notifications/tools/list_changed.

With --transport stdio (the default) the client starts spirit and speaks over
its standard input and output. With --transport http, spirit listens on a
loopback address and serves MCP at /mcp; every request needs the header
"Authorization: Bearer <token>" with the token in mcp.token of the data
directory (made on first use, mode 0600).`,
		Example: `  spirit mcp serve
  spirit mcp serve --host desktop
  spirit mcp serve --dev ./my-ext
  spirit mcp serve --transport http --listen 127.0.0.1:7077`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch opts.Transport {
			case transportStdio, transportHTTP:
			default:
				return usageErrorf("unknown transport %q: use stdio or http", opts.Transport)
			}
			if cmd.Flags().Changed("listen") && opts.Transport != transportHTTP {
				return usageErrorf("--listen needs --transport http")
			}
			if _, err := mcp.CheckListen(opts.Listen); err != nil {
				return usageErrorf("%v", err)
			}
			if opts.Timeout < 0 {
				return usageErrorf("--timeout must not be negative")
			}
			if opts.IdleTimeout < 0 {
				return usageErrorf("--idle-timeout must not be negative")
			}
			if runF != nil {
				return runF(opts)
			}
			return runMCPServe(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Transport, "transport", transportStdio, "how clients connect: stdio or http")
	fl.StringVar(&opts.Listen, "listen", mcp.DefaultListen, "loopback address of the http transport")
	fl.DurationVar(&opts.Timeout, "timeout", exthost.DefaultCallTimeout, "time limit of one tool call")
	fl.DurationVar(&opts.IdleTimeout, "idle-timeout", exthost.DefaultIdleTimeout, "stop an extension's process after this long without a call (0: never); it starts again when needed")
	fl.BoolVar(&opts.Yes, "yes", false, "run need-approval tools without asking when the client cannot ask (no elicitation)")
	fl.StringArrayVar(&opts.Dev, "dev", nil, devFlagUsage+"; edits restart it and announce a changed tool list")
	_ = cmd.RegisterFlagCompletionFunc("transport", cobra.FixedCompletions([]string{transportStdio, transportHTTP}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// warnWriter reports the server's warnings on stderr.
type warnWriter struct{ w io.Writer }

func (r warnWriter) Warn(err error) { termtext.Fprintf(r.w, "warning: %v\n", err) }

func runMCPServe(ctx context.Context, opts *MCPServeOptions) error {
	ios := opts.IO
	p, err := opts.Paths()
	if err != nil {
		return err
	}
	// Standard input may be the protocol, so the file keyring is never
	// unlocked by a prompt here: SPIRIT_KEYRING_PASSWORD or nothing.
	secrets := openSecrets(opts.Getenv, ios.ErrOut, p.DataDir, nil)
	ropts := exthost.Options{Paths: p, Getenv: opts.Getenv, Secrets: secrets, CallTimeout: opts.Timeout, Sandbox: sandboxHook(opts.Sandbox, p),
		IdleTimeout: opts.IdleTimeout}
	if err := withDev(ios.ErrOut, p, opts.Dev, &ropts); err != nil {
		return err
	}
	host, err := exthost.New(ropts)
	if err != nil {
		return err
	}
	rep := warnWriter{ios.ErrOut}
	if opts.Getenv("GOGC") == "" && opts.Getenv("GOMEMLIMIT") == "" {
		defer mcp.TuneGC()()
	}
	defer func() {
		if err := host.Close(); err != nil {
			rep.Warn(err)
		}
	}()
	srv, err := mcp.New(mcp.Options{
		Host:     host,
		Version:  build.String(),
		Approve:  opts.Yes,
		Reporter: rep,
	})
	if err != nil {
		return hostError(err)
	}
	defer srv.Close()

	if opts.Transport == transportStdio {
		if opts.Getenv("GOMAXPROCS") == "" {
			defer mcp.TuneStdio()()
		}
		if ios.IsStdinTTY() && ios.IsStderrTTY() {
			fmt.Fprintln(ios.ErrOut, "spirit mcp serve speaks MCP on stdin/stdout for an agent to start it; press Ctrl-C to stop")
		}
		err := srv.Run(ctx, mcp.NewStdioTransport(ios.In, ios.Out, rep))
		if errors.Is(err, io.EOF) || errors.Is(err, sdk.ErrConnectionClosed) {
			return nil
		}
		return err
	}

	token, err := mcp.EnsureToken(p.MCPTokenFile())
	if err != nil {
		return err
	}
	addr, _ := mcp.CheckListen(opts.Listen)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return withHint(fmt.Errorf("listening on %s: %w", addr, err), "choose another port with --listen 127.0.0.1:PORT")
	}
	url := "http://" + ln.Addr().String() + mcp.Path
	termtext.Fprintf(ios.ErrOut, "spirit: MCP server at %s\nspirit: bearer token in %s\n", url, p.MCPTokenFile())
	if opts.ready != nil {
		opts.ready(ln.Addr().String())
	}
	return srv.ServeHTTP(ctx, ln, token)
}

// sandboxHook is exthost.Options.Sandbox from an optional maker of the CLI's sandbox.
func sandboxHook(mk func(*paths.Paths) *extSandbox, p *paths.Paths) func(context.Context, *install.Installed, *exec.Cmd) error {
	if mk == nil {
		return nil
	}
	return mk(p).Wrap
}
