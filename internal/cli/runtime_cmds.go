package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/spiritagents/spirit/exthost"
	"github.com/spiritagents/spirit/internal/termtext"
	"github.com/spiritagents/spirit/manifest"
)

// addRuntimeCommands adds the runtime commands to the extension group.
func addRuntimeCommands(parent *cobra.Command, f *Factory) {
	parent.AddCommand(
		newCmdTools(f, nil),
		newCmdCall(f, nil),
		newCmdPrompt(f, nil),
		newCmdEmit(f, nil),
		newCmdSettings(f),
		newCmdSecrets(f),
	)
}

// newHost builds the runtime host of the chosen data dir and host kind,
// with the --dev package directories dev loaded as if installed; tune, when
// given, adjusts the options.
func newHost(f *Factory, callTimeout time.Duration, dev []string, tune ...func(*exthost.Options)) (*exthost.Host, error) {
	p, err := f.Paths()
	if err != nil {
		return nil, err
	}
	ropts := exthost.Options{
		Paths:       p,
		Getenv:      f.Getenv,
		Secrets:     newSecrets(f, p.DataDir),
		CallTimeout: callTimeout,
		Sandbox:     newExtSandbox(f, p).Wrap,
	}
	if err := withDev(f.IO.ErrOut, p, dev, &ropts); err != nil {
		return nil, err
	}
	for _, t := range tune {
		t(&ropts)
	}
	h, err := exthost.New(ropts)
	if err != nil {
		return nil, err
	}
	return h, nil
}

// hostError adds a hint to the runtime errors that have a remedy.
func hostError(err error) error {
	if hint := sandboxHint(err); hint != "" {
		return withHint(err, hint)
	}
	var ve *exthost.NodeVersionError
	var xe *exthost.ExitError
	switch {
	case errors.Is(err, exthost.ErrNodeNotFound), errors.As(err, &ve):
		return withHint(err, "install Node.js 18 or later (https://nodejs.org), or set SPIRIT_NODE to its path")
	case errors.Is(err, exthost.ErrNotFound):
		return withHint(err, "see the installed extensions with: spirit extension list")
	case errors.Is(err, exthost.ErrUnknownTool):
		return withHint(err, "see the tool names with: spirit extension tools")
	case errors.Is(err, exthost.ErrNoKeyringPassword), errors.Is(err, exthost.ErrKeyringTimeout):
		return secretStoreError(err)
	case errors.As(err, &xe):
		return err
	}
	return err
}

// closeHost closes h and reports dispose failures on stderr.
func closeHost(f *Factory, h *exthost.Host) {
	if err := h.Close(); err != nil {
		termtext.Fprintf(f.IO.ErrOut, "warning: %v\n", err)
	}
}

func warnFailures(f *Factory, failures []exthost.Failure) {
	for _, fl := range failures {
		termtext.Fprintf(f.IO.ErrOut, "warning: %s: %v\n", fl.ExtensionID, fl.Err)
		warnLocation(f, fl.Err)
	}
}

// ToolsOptions are the inputs of `spirit extension tools`.
type ToolsOptions struct {
	f   *Factory
	Dev []string
}

func newCmdTools(f *Factory, runF func(*ToolsOptions) error) *cobra.Command {
	opts := &ToolsOptions{f: f}
	cmd := &cobra.Command{
		Use:   "tools",
		Short: "List the model-facing tools of installed extensions",
		Long: `List the tools installed extensions give a model: the invocation name the model
sees, the extension and manifest tool name, the approval and execution modes,
and the description. A tool is listed only when its extension requests both
tool-definitions and tool-execution and declares main.`,
		Example: `  spirit extension tools
  spirit extension tools --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runTools(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringArrayVar(&opts.Dev, "dev", nil, devFlagUsage)
	return cmd
}

// ToolsReport is the --json output of `tools`. Its fields are a public contract.
type ToolsReport struct {
	Tools []exthost.Tool `json:"tools"`
}

func runTools(ctx context.Context, opts *ToolsOptions) error {
	f := opts.f
	readCommandGC(f.Getenv)
	h, err := newHost(f, 0, opts.Dev)
	if err != nil {
		return err
	}
	defer closeHost(f, h)
	tools, err := h.Tools(ctx)
	if err != nil {
		return err
	}
	if warns, err := h.Warnings(); err == nil {
		for _, w := range warns {
			for _, msg := range w.Warnings {
				termtext.Fprintf(f.IO.ErrOut, "warning: %s: %s\n", w.ExtensionID, msg)
			}
		}
	}
	if f.Global.JSON {
		if tools == nil {
			tools = []exthost.Tool{}
		}
		return writeJSON(f.IO.Out, ToolsReport{Tools: tools})
	}
	if len(tools) == 0 {
		fmt.Fprintln(f.IO.ErrOut, "No extension tools are installed.")
		return nil
	}
	// A table on a terminal; tab-separated rows without a header on a
	// pipe, as list prints them.
	tp := newTablePrinter(f.IO, 4, "NAME", "EXTENSION/TOOL", "APPROVAL", "EXECUTION", "DESCRIPTION")
	for _, t := range tools {
		tp.addRow(t.Name, t.ExtensionID+"/"+t.ToolName,
			orDefault(t.ApprovalMode, exthost.ApprovalAllowed), orDefault(t.ExecutionMode, "foreground"), oneLine(t.Description))
		tp.colorCell(0, f.IO.ColorScheme().Bold)
	}
	return tp.render()
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// CallOptions are the inputs of `spirit extension call`.
type CallOptions struct {
	f       *Factory
	Name    string
	Args    string
	Timeout time.Duration
	Yes     bool
	Note    string
	NoteSet bool
	Dev     []string
	// SecretEnv are --secret-env KEY=ENVNAME: secrets of the called
	// extension for this run, from the environment, stored nowhere.
	SecretEnv []string

	// RawFields (-f key=value) and Fields (-F key=value) are set on the
	// --args object.
	RawFields, Fields []string
}

func newCmdCall(f *Factory, runF func(*CallOptions) error) *cobra.Command {
	opts := &CallOptions{f: f}
	cmd := &cobra.Command{
		Use:   "call NAME",
		Short: "Call an extension tool",
		Long: `Call one extension tool and print its result. NAME is the invocation name that
"spirit extension tools" lists, or ID/TOOL (extension id and manifest tool name).

The arguments are checked against the tool's inputSchema before the extension
runs. A tool whose approvalMode is need-approval asks for confirmation at a
terminal, or needs --yes; a need-questions tool asks for an execution note, or
takes it from --note.`,
		Example: `  spirit extension call extension__my_ext__echo__99f4e472 --args '{"text":"hi"}'
  spirit extension call my-ext/echo --args '{"text":"hi"}' --json
  spirit extension call @acme/deploy/run --yes --timeout 5m
  spirit extension call my-ext/echo -f text=hi -F count=3
  spirit extension call my-ext/echo --args @args.json
  spirit extension call my-ext/fetch --secret-env api-token=MY_EXT_TOKEN
  echo '{"text":"hi"}' | spirit extension call my-ext/echo --args -`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			opts.NoteSet = cmd.Flags().Changed("note")
			if runF != nil {
				return runF(opts)
			}
			return runCall(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Args, "args", "{}", "tool arguments: a JSON object, @FILE, or - for standard input")
	cmd.Flags().StringArrayVarP(&opts.RawFields, "raw-field", "f", nil, "set the string argument `key=value` (repeatable)")
	cmd.Flags().StringArrayVarP(&opts.Fields, "field", "F", nil, "set the argument `key=value` to a JSON value: 3, true, null, [1,2], \"text\" (repeatable)")
	cmd.Flags().DurationVar(&opts.Timeout, "timeout", exthost.DefaultCallTimeout, "how long the tool may run")
	cmd.Flags().BoolVarP(&opts.Yes, "yes", "y", false, "approve a need-approval tool without asking")
	cmd.Flags().StringVar(&opts.Note, "note", "", "execution note for a need-questions tool")
	cmd.Flags().StringArrayVar(&opts.Dev, "dev", nil, devFlagUsage)
	cmd.Flags().StringArrayVar(&opts.SecretEnv, "secret-env", nil, "give the called extension's secret slot `KEY=ENVNAME` the value of that environment variable for this run, stored nowhere (repeatable)")
	return cmd
}

func runCall(ctx context.Context, opts *CallOptions) error {
	f := opts.f
	if opts.Timeout <= 0 {
		return usageErrorf("--timeout must be positive")
	}
	args, err := toolArguments(opts.Args, opts.RawFields, opts.Fields, f.IO.In)
	if err != nil {
		return err
	}
	runSecrets, err := parseSecretEnv(f.Getenv, opts.SecretEnv)
	if err != nil {
		return err
	}
	h, err := newHost(f, opts.Timeout, opts.Dev)
	if err != nil {
		return err
	}
	defer closeHost(f, h)
	req := exthost.CallRequest{Name: opts.Name, Arguments: args, Approved: opts.Yes, Secrets: runSecrets}
	if opts.NoteSet || opts.Yes {
		req.QuestionsResult = noteResult(opts.Note)
	}
	res, err := h.Call(ctx, req)
	var ae *exthost.ApprovalError
	if errors.As(err, &ae) {
		if err := askApproval(f, ae, &req); err != nil {
			return err
		}
		res, err = h.Call(ctx, req)
	}
	if err != nil {
		return hostError(authorError(err))
	}
	if f.Global.JSON {
		return writeJSON(f.IO.Out, res)
	}
	text := res.Text
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	_, err = termtext.Fprintf(f.IO.Out, "%s", termtext.Multiline(text))
	return err
}

func noteResult(note string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"execution_note": note})
	return b
}

// askApproval asks at the terminal for what ae needs and fills req.
func askApproval(f *Factory, ae *exthost.ApprovalError, req *exthost.CallRequest) error {
	if ae.Mode == exthost.ApprovalNeedQuestions {
		if !f.IO.CanPrompt() {
			return withHint(ae, "pass --note TEXT (or --yes for an empty note)")
		}
		line, err := f.IO.Prompter().Input("%s\nAdditional execution notes: ", termtext.Multiline(ae.Prompt))
		if err != nil {
			return err
		}
		req.QuestionsResult = noteResult(strings.TrimSpace(line))
		return nil
	}
	if !f.IO.CanPrompt() {
		return withHint(ae, "pass --yes to approve it")
	}
	ok, err := f.IO.Prompter().Confirm("%s\n\nRun it?", termtext.Multiline(ae.Prompt))
	if err != nil {
		return err
	}
	if !ok {
		return errors.New("not approved")
	}
	req.Approved = true
	return nil
}

// PromptOptions are the inputs of `spirit extension prompt`.
type PromptOptions struct {
	f   *Factory
	Dev []string
}

func newCmdPrompt(f *Factory, runF func(*PromptOptions) error) *cobra.Command {
	opts := &PromptOptions{f: f}
	cmd := &cobra.Command{
		Use:   "prompt",
		Short: "Print the <extensions> system prompt block",
		Long: `Activate the extensions that request system-prompt and declare main, collect
their prompts and print the <extensions> block an agent adds to its system
prompt, exactly as Spirit Agent builds it. Nothing is printed when no extension
contributes. An extension whose prompt fails is left out with a warning.`,
		Example: `  spirit extension prompt
  spirit extension prompt --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runPrompt(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringArrayVar(&opts.Dev, "dev", nil, devFlagUsage)
	return cmd
}

func runPrompt(ctx context.Context, opts *PromptOptions) error {
	f := opts.f
	// Each extension is visited once: stopping it right after keeps one
	// process per core resident instead of one per extension.
	h, err := newHost(f, 0, opts.Dev, func(o *exthost.Options) { o.IdleTimeout = exthost.IdleImmediate })
	if err != nil {
		return err
	}
	defer closeHost(f, h)
	pr, err := h.SystemPrompt(ctx)
	if err != nil {
		return hostError(err)
	}
	if f.Global.JSON {
		return writeJSON(f.IO.Out, pr)
	}
	warnFailures(f, pr.Failures)
	if pr.Block != "" {
		_, err = termtext.Fprintln(f.IO.Out, termtext.Multiline(pr.Block))
	}
	return err
}

// EmitOptions are the inputs of `spirit extension emit`.
type EmitOptions struct {
	f       *Factory
	Event   string
	Detail  string
	Targets []string
	Dev     []string
}

func newCmdEmit(f *Factory, runF func(*EmitOptions) error) *cobra.Command {
	opts := &EmitOptions{f: f}
	cmd := &cobra.Command{
		Use:   "emit EVENT",
		Short: "Send an activation event to the extensions that listen to it",
		Long: `Send an event to every installed extension that lists it in activationEvents
and declares main (or only to the --target ids). An extension that is not
running is activated with the event as ctx.activationEvent; then its onEvent
gets it. A failing extension is reported and the others still get the event;
the exit status is 1 when any failed.

Events: ` + strings.Join(eventNames(), ", ") + ".",
		Example: `  spirit extension emit onStartup --detail '{"workspaceRoot":"/src/app"}'
  spirit extension emit onUserMessage --detail '{"text":"hi"}' --target my-ext`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Event = args[0]
			if runF != nil {
				return runF(opts)
			}
			return runEmit(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Detail, "detail", "", "event detail as JSON")
	cmd.Flags().StringArrayVar(&opts.Targets, "target", nil, "send only to this extension id (repeatable)")
	cmd.Flags().StringArrayVar(&opts.Dev, "dev", nil, devFlagUsage)
	return cmd
}

func eventNames() []string {
	return []string{"onStartup", "onExtensionInstalled", "onSessionOpened", "onSessionReset",
		"onUserMessage", "onToolCall", "onToolResult", "onApprovalResolved"}
}

// EmitReport is the --json output of `emit`. Its fields are a public contract.
type EmitReport struct {
	Event    string            `json:"event"`
	Failures []exthost.Failure `json:"failures"`
}

// emitFailedError says some extensions failed on the event (exit 1); the
// failures were already printed.
type emitFailedError struct{ n int }

func (e *emitFailedError) Error() string {
	return fmt.Sprintf("%d extension(s) failed on the event", e.n)
}

func runEmit(ctx context.Context, opts *EmitOptions) error {
	f := opts.f
	ev := exthost.Event{Type: strings.TrimSpace(opts.Event)}
	valid := false
	for _, n := range eventNames() {
		valid = valid || n == ev.Type
	}
	if !valid {
		return usageErrorf("unknown event %q: use one of %s", opts.Event, strings.Join(eventNames(), ", "))
	}
	if opts.Detail != "" {
		if !json.Valid([]byte(opts.Detail)) {
			return usageErrorf("--detail is not valid JSON: %s", opts.Detail)
		}
		ev.Detail = json.RawMessage(opts.Detail)
	}
	h, err := newHost(f, 0, opts.Dev)
	if err != nil {
		return err
	}
	defer closeHost(f, h)
	failures, err := h.Emit(ctx, ev, opts.Targets...)
	if err != nil {
		return hostError(err)
	}
	if f.Global.JSON {
		if failures == nil {
			failures = []exthost.Failure{}
		}
		if err := writeJSON(f.IO.Out, EmitReport{Event: ev.Type, Failures: failures}); err != nil {
			return err
		}
	} else {
		warnFailures(f, failures)
	}
	if len(failures) > 0 {
		return &emitFailedError{len(failures)}
	}
	return nil
}

// afterInstall runs what follows every install or update of m, in the
// extension's sandbox: onExtensionInstalled when it listens for it, then,
// unless noWarm, its static system prompt read into the prompt cache
// (exthost.Host.WarmPrompt), so the first prompt or mcp serve after the
// install starts no Node for it. One host serves both, so an extension
// activated by the event gives the prompt of that same activation, as in
// an apps' session. Failures are warnings: the install stands.
func afterInstall(ctx context.Context, f *Factory, m *manifest.Manifest, noWarm bool) {
	runAfterInstall(ctx, f, m, true, noWarm)
}

// warmPrompt caches the static system prompt of m after an update (no
// onExtensionInstalled: the update commands never sent it), unless noWarm.
func warmPrompt(ctx context.Context, f *Factory, m *manifest.Manifest, noWarm bool) {
	runAfterInstall(ctx, f, m, false, noWarm)
}

func runAfterInstall(ctx context.Context, f *Factory, m *manifest.Manifest, event, noWarm bool) {
	if m == nil || m.Main == "" {
		return
	}
	notify := event && m.ListensTo("onExtensionInstalled")
	warm := !noWarm && m.HasCapability(exthost.CapSystemPrompt)
	if !notify && !warm {
		return
	}
	h, err := newHost(f, 0, nil)
	if err != nil {
		termtext.Fprintf(f.IO.ErrOut, "warning: after installing %s: %v\n", m.ID, err)
		return
	}
	defer closeHost(f, h)
	if notify {
		failures, err := h.ExtensionInstalled(ctx, m.ID)
		if err != nil {
			termtext.Fprintf(f.IO.ErrOut, "warning: onExtensionInstalled: %v\n", err)
		}
		warnFailures(f, failures)
	}
	if warm {
		if _, err := h.WarmPrompt(ctx, m.ID); err != nil && ctx.Err() == nil {
			termtext.Fprintf(f.IO.ErrOut, "warning: reading the system prompt of %s: %v\n", m.ID, err)
		}
	}
}
