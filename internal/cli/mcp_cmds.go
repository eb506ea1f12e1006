package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/99designs/keyring"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/spiritagents/spirit/internal/build"
	"github.com/spiritagents/spirit/mcp"
	"github.com/spiritagents/spirit/runtime"
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
	f         *Factory
	Transport string
	Listen    string
	Timeout   time.Duration
	Yes       bool

	// ctx ends the server; nil means the first SIGINT or SIGTERM.
	ctx context.Context
	// ready, when set, is told the HTTP address once it listens (tests).
	ready func(addr string)
}

func newCmdMCPServe(f *Factory, runF func(*MCPServeOptions) error) *cobra.Command {
	opts := &MCPServeOptions{f: f}
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

With --transport stdio (the default) the client starts spirit and speaks over
its standard input and output. With --transport http, spirit listens on a
loopback address and serves MCP at /mcp; every request needs the header
"Authorization: Bearer <token>" with the token in mcp.token of the data
directory (made on first use, mode 0600).`,
		Example: `  spirit mcp serve
  spirit mcp serve --host desktop
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
			if runF != nil {
				return runF(opts)
			}
			return runMCPServe(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Transport, "transport", transportStdio, "how clients connect: stdio or http")
	fl.StringVar(&opts.Listen, "listen", mcp.DefaultListen, "loopback address of the http transport")
	fl.DurationVar(&opts.Timeout, "timeout", runtime.DefaultCallTimeout, "time limit of one tool call")
	fl.BoolVar(&opts.Yes, "yes", false, "run need-approval tools without asking when the client cannot ask (no elicitation)")
	_ = cmd.RegisterFlagCompletionFunc("transport", cobra.FixedCompletions([]string{transportStdio, transportHTTP}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// warnWriter reports the server's warnings on stderr.
type warnWriter struct{ w io.Writer }

func (r warnWriter) Warn(err error) { fmt.Fprintf(r.w, "warning: %v\n", err) }

func runMCPServe(opts *MCPServeOptions) error {
	f := opts.f
	p, err := f.Paths()
	if err != nil {
		return err
	}
	ctx := opts.ctx
	if ctx == nil {
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
	}
	// Standard input may be the protocol, so the file keyring is never
	// unlocked by a prompt here: SPIRIT_KEYRING_PASSWORD or nothing.
	secrets := runtime.NewSecrets(func() (keyring.Keyring, error) {
		return runtime.OpenKeyring(runtime.KeyringConfig{Getenv: f.Getenv, FileDir: keyringDir(p.DataDir)})
	})
	host, err := runtime.New(runtime.Options{Paths: p, Getenv: f.Getenv, Secrets: secrets, CallTimeout: opts.Timeout, Confine: newConfiner(f, p).Confine})
	if err != nil {
		return err
	}
	defer closeHost(f, host)
	srv, err := mcp.New(mcp.Options{
		Host:     host,
		Version:  build.String(),
		Approve:  opts.Yes,
		Reporter: warnWriter{f.IO.ErrOut},
	})
	if err != nil {
		return hostError(err)
	}
	defer srv.Close()

	if opts.Transport == transportStdio {
		in, _ := f.IO.In.(io.ReadCloser)
		if in == nil {
			in = io.NopCloser(f.IO.In)
		}
		err := srv.Run(ctx, &sdk.IOTransport{Reader: in, Writer: nopWriteCloser{f.IO.Out}})
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
	fmt.Fprintf(f.IO.ErrOut, "spirit: MCP server at %s\nspirit: bearer token in %s\n", url, p.MCPTokenFile())
	if opts.ready != nil {
		opts.ready(ln.Addr().String())
	}
	return srv.ServeHTTP(ctx, ln, token)
}

// nopWriteCloser keeps the transport from closing the command's stdout.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
