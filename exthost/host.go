package exthost

import (
	"bytes"
	"cmp"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/manifest"
	"github.com/spiritagents/spirit/paths"
)

//go:embed runner/runner.mjs
var runnerScript string

// Default timeouts.
const (
	DefaultActivateTimeout = 10 * time.Second
	DefaultCallTimeout     = 60 * time.Second
	DefaultDisposeTimeout  = 2 * time.Second
	DefaultKillGrace       = 5 * time.Second
)

// Capabilities that gate the runtime.
const (
	CapToolDefinitions = "tool-definitions"
	CapToolExecution   = "tool-execution"
	CapSystemPrompt    = "system-prompt"
)

// Approval modes of a tool.
const (
	ApprovalAllowed       = "allowed"
	ApprovalNeedApproval  = "need-approval"
	ApprovalNeedQuestions = "need-questions"
)

// Options configure a Host.
type Options struct {
	// Paths is the install tree of the host kind (cli or desktop). Required.
	Paths *paths.Paths
	// List returns the installed extensions in list order; nil means
	// install.List(Paths).
	List func() ([]install.Installed, error)
	// ListStamp, when set, is a further mark of what List returns (the
	// fingerprint of --dev package directories): the list is read again
	// whenever it changes, as when the extensions directory changes.
	ListStamp func() string
	// NodePath is the node executable; "" means SPIRIT_NODE, then PATH.
	NodePath string
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
	// Environ is the environment children get a part of; nil means
	// os.Environ(). An extension gets only an allow list of it (PATH, HOME,
	// locale, TZ, TMPDIR, certificate and proxy variables, the proxies
	// without credentials) and the names ExtraEnv gives for it.
	Environ []string
	// ExtraEnv returns the names of further Environ variables extension id
	// may see (the user's explicit grant); nil means none.
	ExtraEnv func(id string) []string
	// Secrets is the secret store; nil means this host stores no secrets
	// (ctx.secrets.get gives undefined, set fails, as on the reference CLI).
	Secrets *Secrets
	// MaxLogSize caps each extension's log file; zero means MaxLogSize.
	MaxLogSize int64
	// Sandbox, when set, rewrites each extension's command (Path, Args,
	// Env) to run it inside a sandbox (see package sandbox); nil runs
	// extensions unconfined.
	Sandbox func(ctx context.Context, ext *install.Installed, cmd *exec.Cmd) error
	// Timeouts; zero means the default.
	ActivateTimeout, CallTimeout, DisposeTimeout, KillGrace time.Duration
	// IdleTimeout stops an extension's process once no call to it has been
	// in flight for that long; its next use starts it again. Zero keeps
	// processes until Close; IdleImmediate stops each as soon as its last
	// call ends.
	IdleTimeout time.Duration
	// MaxProcesses bounds the extension processes alive at once (starting,
	// running or stopping); zero means DefaultMaxProcesses, negative no
	// bound. At the bound, a start stops the least recently used process
	// that has no call in flight, or waits for one to finish.
	MaxProcesses int
}

// Tool is one model-facing tool.
type Tool struct {
	// Name is the invocation name the model sees.
	Name          string          `json:"name"`
	ExtensionID   string          `json:"extensionId"`
	ExtensionName string          `json:"extensionName"`
	ToolName      string          `json:"toolName"`
	Description   string          `json:"description"`
	InputSchema   json.RawMessage `json:"inputSchema"`
	OutputSchema  json.RawMessage `json:"outputSchema,omitempty"`
	ApprovalMode  string          `json:"approvalMode,omitempty"`
	ExecutionMode string          `json:"executionMode,omitempty"`
}

// CallRequest asks for one tool call.
type CallRequest struct {
	// Name is the invocation name, or "ID/TOOL" (extension id and manifest
	// tool name).
	Name string
	// Arguments is a JSON object; nil means {}.
	Arguments json.RawMessage
	// ToolCallID is passed to the handler as ctx.toolCallId.
	ToolCallID string
	// Approved says the user approved a need-approval tool.
	Approved bool
	// QuestionsResult is the answer to a need-questions tool's question,
	// passed as ctx.questionsResult; it must be a JSON object.
	QuestionsResult json.RawMessage
	// Secrets are values of the called extension's secret slots, by key,
	// stored nowhere: from then on the host's Secrets give them to that
	// extension instead of the stored ones (Secrets.SetRunValue). A key the
	// extension does not declare is an *UndeclaredSecretError.
	Secrets map[string]string
}

// Result is a tool's answer.
type Result struct {
	Tool Tool `json:"tool"`
	// Text is the rendered result: a string as returned, undefined as "",
	// anything else as JSON.stringify(value, null, 2).
	Text string `json:"text"`
	// Structured is Text parsed, when the tool has an outputSchema.
	Structured json.RawMessage `json:"structured,omitempty"`
}

// Event is an activation event sent to extensions.
type Event struct {
	Type   string `json:"type"`
	Detail any    `json:"detail,omitempty"`
}

// Failure is one extension's failure that did not stop the others.
type Failure struct {
	ExtensionID string `json:"extensionId"`
	Err         error  `json:"-"`
}

// MarshalJSON writes {"extensionId","error"}.
// A nil Err gives "".
func (f Failure) MarshalJSON() ([]byte, error) {
	msg := ""
	if f.Err != nil {
		msg = f.Err.Error()
	}
	return json.Marshal(struct {
		ExtensionID string `json:"extensionId"`
		Error       string `json:"error"`
	}{f.ExtensionID, msg})
}

// PromptContribution is one extension's system prompt text.
type PromptContribution struct {
	ExtensionID   string `json:"extensionId"`
	ExtensionName string `json:"extensionName"`
	Content       string `json:"content"`
}

// Prompt is the aggregated system prompt.
type Prompt struct {
	// Block is the <extensions> block, "" when no extension contributes.
	Block         string               `json:"block"`
	Contributions []PromptContribution `json:"contributions"`
	// Failures are extensions whose prompt could not be collected; they
	// are left out, as in the reference.
	Failures []Failure `json:"failures,omitempty"`
}

// Host runs installed extensions. Create it with New and Close it when done.
type Host struct {
	opts     Options
	getenv   func(string) string
	settings *Settings

	nodeOnce sync.Once
	node     string
	nodeErr  error

	mu     sync.Mutex
	closed bool
	slots  map[string]*slot

	listMu      sync.Mutex
	listChecked time.Time // when the stamps were last read
	listStamp   time.Time
	listExtra   string
	listed      []install.Installed
	tools       []toolEntry

	schemaMu sync.Mutex
	schemas  map[string]*schemaSet // by extension id

	starting chan struct{} // one token per process starting
	live     liveSet       // the processes that exist
	quit     chan struct{} // closed by Close
	prompts  promptCache
	// idleStopped, when set (by tests), is called after an idle process
	// is stopped.
	idleStopped func(id string)
}

// schemaSet is the compiled tool schemas of one install of an extension;
// a reinstall replaces it, so the cache holds one set per extension.
type schemaSet struct {
	installedAt int64
	dir         string
	byKey       map[string]*jsonschema.Schema
}

// slot holds one extension's process; its mutex serialises start and stop.
type slot struct {
	mu sync.Mutex
	p  *process
}

type toolEntry struct {
	Tool
	ext *install.Installed
}

// New returns a Host. It starts nothing: extensions are activated at first use.
func New(opts Options) (*Host, error) {
	if opts.Paths == nil {
		return nil, errors.New("runtime: Options.Paths is required")
	}
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.List == nil {
		p := opts.Paths
		opts.List = func() ([]install.Installed, error) { return install.List(p) }
	}
	if opts.Environ == nil {
		opts.Environ = os.Environ()
	}
	opts.ActivateTimeout = cmp.Or(opts.ActivateTimeout, DefaultActivateTimeout)
	opts.CallTimeout = cmp.Or(opts.CallTimeout, DefaultCallTimeout)
	opts.DisposeTimeout = cmp.Or(opts.DisposeTimeout, DefaultDisposeTimeout)
	opts.KillGrace = cmp.Or(opts.KillGrace, DefaultKillGrace)
	h := &Host{
		opts:     opts,
		getenv:   opts.Getenv,
		settings: NewSettings(opts.Paths),
		slots:    map[string]*slot{},
		schemas:  map[string]*schemaSet{},
		starting: make(chan struct{}, startSlots()),
		quit:     make(chan struct{}),
	}
	h.live.max, h.live.changed = cmp.Or(opts.MaxProcesses, DefaultMaxProcesses()), make(chan struct{})
	if opts.IdleTimeout > 0 {
		go h.reap()
	}
	return h, nil
}

// runSecrets gives ext the one-run secret values of a call, after checking
// every key against its manifest.
func (h *Host) runSecrets(ext *install.Installed, values map[string]string) error {
	if len(values) == 0 {
		return nil
	}
	if h.opts.Secrets == nil {
		return fmt.Errorf("secrets given for %s, but this host keeps no secrets", ext.ID)
	}
	for key := range values {
		if err := checkSlot(ext.Manifest, key); err != nil {
			return err
		}
	}
	for key, v := range values {
		h.opts.Secrets.SetRunValue(ext.ID, key, v)
	}
	return nil
}

// Settings returns the settings store the host uses.
func (h *Host) Settings() *Settings { return h.settings }

// Secrets returns the secret store the host uses (nil when it has none).
func (h *Host) Secrets() *Secrets { return h.opts.Secrets }

// Refresh forgets the cached list of installed extensions.
func (h *Host) Refresh() {
	h.listMu.Lock()
	h.listStamp = time.Time{}
	h.listed = nil
	h.listMu.Unlock()
}

// staleCheck is how often the list's stamps are read: a warm call does
// not pay a stat each time. With --dev packages (ListStamp) they are read
// at every use, so an edit is run by the very next call.
const staleCheck = 100 * time.Millisecond

// list returns the installed extensions and the exposed tools. The list is
// read again when the extensions directory changed (every install,
// replace and remove renames a directory in it), checked at most every
// staleCheck.
func (h *Host) list() ([]install.Installed, []toolEntry, error) {
	h.listMu.Lock()
	if h.listed != nil && h.opts.ListStamp == nil && time.Since(h.listChecked) < staleCheck {
		defer h.listMu.Unlock()
		return h.listed, h.tools, nil
	}
	h.listMu.Unlock()
	return h.listNow()
}

// listNow is list with the stamps read now: a name that is not found may
// have been installed since the last check.
func (h *Host) listNow() ([]install.Installed, []toolEntry, error) {
	checked := time.Now()
	stamp := time.Time{}
	if fi, err := os.Stat(h.opts.Paths.ExtensionsDir()); err == nil {
		stamp = fi.ModTime()
	}
	extra := ""
	if h.opts.ListStamp != nil {
		extra = h.opts.ListStamp()
	}
	h.listMu.Lock()
	defer h.listMu.Unlock()
	if h.listed != nil && !stamp.IsZero() && stamp.Equal(h.listStamp) && extra == h.listExtra {
		h.listChecked = checked
		return h.listed, h.tools, nil
	}
	exts, err := h.opts.List()
	if err != nil {
		return nil, nil, err
	}
	if exts == nil {
		exts = []install.Installed{}
	}
	h.listed, h.tools, h.listStamp, h.listExtra, h.listChecked = exts, exposedTools(exts), stamp, extra, checked
	return h.listed, h.tools, nil
}

// ExtensionWarning is what spirit's install would refuse in an installed
// extension that the apps accept (install.Installed.Warnings): the
// extension is used as the apps use it, and these are shown.
type ExtensionWarning struct {
	ExtensionID string
	Warnings    []string
}

// Warnings returns the warnings of the installed extensions, in list order.
func (h *Host) Warnings() ([]ExtensionWarning, error) {
	exts, _, err := h.list()
	if err != nil {
		return nil, err
	}
	var out []ExtensionWarning
	for i := range exts {
		if exts[i].Manifest != nil && len(exts[i].Warnings) > 0 {
			out = append(out, ExtensionWarning{ExtensionID: exts[i].ID, Warnings: slices.Clone(exts[i].Warnings)})
		}
	}
	return out, nil
}

// Extension returns the installed extension id.
func (h *Host) Extension(id string) (*install.Installed, error) {
	id = manifest.TrimJS(id)
	if id == "" {
		return nil, errors.New("The extension id must not be empty.")
	}
	for _, list := range []func() ([]install.Installed, []toolEntry, error){h.list, h.listNow} {
		exts, _, err := list()
		if err != nil {
			return nil, err
		}
		for i := range exts {
			if exts[i].ID == id {
				if exts[i].Manifest == nil {
					return nil, fmt.Errorf("extension %s is broken: %w", id, exts[i].Broken)
				}
				return &exts[i], nil
			}
		}
	}
	return nil, &NotFoundError{ID: id}
}

func exposes(m *manifest.Manifest) bool {
	return m != nil && m.Main != "" && m.HasCapability(CapToolDefinitions) && m.HasCapability(CapToolExecution)
}

// exposedTools names every exposed tool as the apps name it (see
// assignNames) and returns them in list order, then manifest order.
func exposedTools(exts []install.Installed) []toolEntry {
	names := assignNames(exts)
	order := make([]int, 0, len(exts))
	for i := range exts {
		if exposes(exts[i].Manifest) {
			order = append(order, i)
		}
	}
	byList := install.ListOrder()
	slices.SortStableFunc(order, func(a, b int) int { return byList(&exts[a], &exts[b]) })
	var out []toolEntry
	for _, i := range order {
		ext := &exts[i]
		for j, t := range ext.Manifest.Tools() {
			out = append(out, toolEntry{ext: ext, Tool: Tool{
				Name:          names[i][j],
				ExtensionID:   ext.ID,
				ExtensionName: ext.DisplayName(),
				ToolName:      t.Name,
				Description:   t.Description,
				InputSchema:   t.InputSchema,
				OutputSchema:  t.OutputSchema,
				ApprovalMode:  t.ApprovalMode,
				ExecutionMode: t.ExecutionMode,
			}})
		}
	}
	return out
}

// Tools returns the model-facing tools in list order, then manifest order.
func (h *Host) Tools(ctx context.Context) ([]Tool, error) {
	_, entries, err := h.list()
	if err != nil {
		return nil, err
	}
	out := make([]Tool, len(entries))
	for i, e := range entries {
		out[i] = e.Tool
	}
	return out, nil
}

// resolve finds a tool by invocation name or "ID/TOOL".
func (h *Host) resolve(name string) (*toolEntry, error) {
	name = strings.TrimSpace(name)
	te, err := h.resolveIn(h.list, name)
	var ue *UnknownToolError
	if errors.As(err, &ue) {
		te, err = h.resolveIn(h.listNow, name)
	}
	return te, err
}

func (h *Host) resolveIn(list func() ([]install.Installed, []toolEntry, error), name string) (*toolEntry, error) {
	_, entries, err := list()
	if err != nil {
		return nil, err
	}
	for i := range entries {
		if entries[i].Name == name {
			return &entries[i], nil
		}
	}
	if k := strings.LastIndex(name, "/"); k > 0 {
		id, tool := name[:k], name[k+1:]
		for i := range entries {
			if entries[i].ExtensionID == id && entries[i].ToolName == tool {
				return &entries[i], nil
			}
		}
	}
	return nil, &UnknownToolError{Name: name}
}

// ApprovalPrompt is the reference's confirmation text for a need-approval
// tool, with one deliberate difference: the reference cuts the whole
// argument text at 1200 code points without a mark, so a long first value
// can hide a later key; here every key is shown and each string longer
// than maxPromptValue code points is cut with "… (N more characters)".
func ApprovalPrompt(t Tool, args json.RawMessage) string {
	pretty := string(args)
	if short, err := shortenValues(args); err == nil {
		if b, err := marshalIndentNoEscape(short); err == nil {
			pretty = string(b)
		}
	}
	return "Extension tool requires confirmation\nExtension: " + t.ExtensionID + "\nTool: " + t.ToolName +
		"\n\nArguments\n" + pretty
}

// maxPromptValue is how many code points of one string value the approval
// prompt shows.
const maxPromptValue = 300

// shortenValues returns the JSON value raw with every string (key or
// value, at any depth) over maxPromptValue code points cut with a visible
// mark, keeping the order of keys.
func shortenValues(raw json.RawMessage) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, errors.New("empty JSON value")
	}
	switch raw[0] {
	case '{', '[':
		dec := json.NewDecoder(bytes.NewReader(raw))
		open, _ := dec.Token()
		var b bytes.Buffer
		b.WriteByte(raw[0])
		for i := 0; dec.More(); i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			if open == json.Delim('{') {
				tok, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, ok := tok.(string)
				if !ok {
					return nil, errors.New("object key is not a string")
				}
				b.Write(shortString(key))
				b.WriteByte(':')
			}
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				return nil, err
			}
			sv, err := shortenValues(v)
			if err != nil {
				return nil, err
			}
			b.Write(sv)
		}
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
		b.WriteByte(map[byte]byte{'{': '}', '[': ']'}[raw[0]])
		return b.Bytes(), nil
	case '"':
		var str string
		if err := json.Unmarshal(raw, &str); err != nil {
			return nil, err
		}
		if utf8.RuneCountInString(str) <= maxPromptValue {
			return raw, nil
		}
		return shortString(str), nil
	}
	return raw, nil
}

// shortString is s as a JSON string, cut to maxPromptValue code points
// with a mark saying how many more there are.
func shortString(s string) []byte {
	if n := utf8.RuneCountInString(s); n > maxPromptValue {
		s = firstRunes(s, maxPromptValue) + fmt.Sprintf("… (%d more characters)", n-maxPromptValue)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimSpace(b.Bytes())
}

// QuestionsTitle is the title of a need-questions tool's question.
func QuestionsTitle(t Tool) string {
	return "Additional execution info for extension tool: " + t.ToolName
}

func marshalIndentNoEscape(raw json.RawMessage) ([]byte, error) {
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// schema returns the compiled schema key of ext's install, compiling raw
// the first time.
func (h *Host) schema(ext *install.Installed, key string, raw json.RawMessage) (*jsonschema.Schema, error) {
	h.schemaMu.Lock()
	defer h.schemaMu.Unlock()
	set := h.schemas[ext.ID]
	if set == nil || set.installedAt != ext.InstalledAtUnixMs || set.dir != ext.Dir {
		set = &schemaSet{installedAt: ext.InstalledAtUnixMs, dir: ext.Dir, byKey: map[string]*jsonschema.Schema{}}
		h.schemas[ext.ID] = set
	}
	if s, ok := set.byKey[key]; ok {
		return s, nil
	}
	s, err := compileSchema(raw)
	if err != nil {
		return nil, err
	}
	set.byKey[key] = s
	return s, nil
}

// Call runs one tool. The error is an *ApprovalError, *ArgumentsError,
// *ToolError (the tool failed: report it to the model), *ExtensionError,
// *TimeoutError, *ExitError, an *UnknownToolError, or ctx's error.
func (h *Host) Call(ctx context.Context, req CallRequest) (*Result, error) {
	te, err := h.resolve(req.Name)
	if err != nil {
		return nil, err
	}
	if err := h.runSecrets(te.ext, req.Secrets); err != nil {
		return nil, err
	}
	args := req.Arguments
	if len(strings.TrimSpace(string(args))) == 0 {
		args = json.RawMessage("{}")
	}
	switch te.ApprovalMode {
	case ApprovalNeedApproval:
		if !req.Approved {
			return nil, &ApprovalError{Mode: te.ApprovalMode, Tool: te.Tool, Prompt: ApprovalPrompt(te.Tool, args)}
		}
	case ApprovalNeedQuestions:
		if len(req.QuestionsResult) == 0 {
			return nil, &ApprovalError{Mode: te.ApprovalMode, Tool: te.Tool, Prompt: QuestionsTitle(te.Tool)}
		}
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(args, &obj); err != nil || obj == nil {
		return nil, &ArgumentsError{Tool: te.Name, Message: "arguments must be a JSON object"}
	}
	if len(req.QuestionsResult) > 0 {
		var q map[string]json.RawMessage
		if err := json.Unmarshal(req.QuestionsResult, &q); err != nil || q == nil {
			return nil, &ArgumentsError{Tool: te.Name, Message: "questionsResult must be a JSON object"}
		}
	}
	key := te.ToolName
	if len(te.InputSchema) > 0 {
		sch, err := h.schema(te.ext, key+"\x00in", te.InputSchema)
		if err != nil {
			return nil, &ToolError{ExtensionID: te.ExtensionID, Tool: te.ToolName, Message: "the tool's inputSchema does not compile: " + err.Error()}
		}
		if ptr, msg, ok := schemaProblem(sch, args); !ok {
			return nil, &ArgumentsError{Tool: te.Name, Pointer: ptr, Message: msg}
		}
	}
	p, err := h.process(ctx, te.ext, nil)
	if err != nil {
		return nil, err
	}
	defer h.release(p)
	params := map[string]any{"toolName": te.ToolName, "arguments": json.RawMessage(args)}
	if req.ToolCallID != "" {
		params["toolCallId"] = req.ToolCallID
	}
	if len(req.QuestionsResult) > 0 {
		params["questionsResult"] = req.QuestionsResult
	}
	var out toolText
	if err := h.request(ctx, p, "call", h.opts.CallTimeout, "invokeTool", params, &out); err != nil {
		var re *rpcError
		if errors.As(err, &re) && re.Code == codeTool {
			return nil, &ToolError{ExtensionID: te.ExtensionID, Tool: te.ToolName, Message: p.mask.string(re.Message)}
		}
		return nil, err
	}
	res := &Result{Tool: te.Tool, Text: p.mask.string(out.Text)}
	if len(te.OutputSchema) > 0 {
		sch, err := h.schema(te.ext, key+"\x00out", te.OutputSchema)
		if err != nil {
			return nil, &ToolError{ExtensionID: te.ExtensionID, Tool: te.ToolName, Message: "the tool's outputSchema does not compile: " + err.Error()}
		}
		if ptr, msg, ok := schemaProblem(sch, []byte(res.Text)); !ok {
			if ptr == "" {
				ptr = "/"
			}
			return nil, &ToolError{ExtensionID: te.ExtensionID, Tool: te.ToolName,
				Message: fmt.Sprintf("the result of %s does not match its outputSchema at %s: %s", te.ToolName, ptr, msg)}
		}
		res.Structured = json.RawMessage(res.Text)
	}
	return res, nil
}

// errTimedOut marks a context that ended because of our own timeout.
var errTimedOut = errors.New("timed out")

// request sends one request to p with a timeout and maps the failures: a
// timeout stops the process, a dead process becomes an *ExitError, an
// extension failure an *ExtensionError.
func (h *Host) request(ctx context.Context, p *process, op string, d time.Duration, method string, params, out any) error {
	cctx, cancel := context.WithTimeoutCause(ctx, d, errTimedOut)
	defer cancel()
	err := p.conn.call(cctx, method, params, out)
	if err == nil {
		return nil
	}
	var re *rpcError
	switch {
	case errors.As(err, &re):
		if re.Code == codeTool {
			return re
		}
		xe := &ExtensionError{ExtensionID: p.ext.ID, Message: p.mask.string(re.Message), LogFile: p.log}
		if re.Data != nil {
			xe.Location = p.mask.string(re.Data.Location)
		}
		return xe
	case errors.Is(err, ErrMessageTooLarge):
		if errors.Is(err, errConnClosed) {
			return &ProtocolError{ExtensionID: p.ext.ID, Err: errors.Unwrap(err)}
		}
		return fmt.Errorf("%s of %s: %w", op, p.ext.ID, err)
	case errors.Is(err, errConnClosed):
		return h.exitError(p)
	case ctx.Err() == nil && context.Cause(cctx) == errTimedOut:
		// Mark it stopping now, so the next call starts a fresh process
		// instead of reaching this one before the kill below begins.
		p.stopping.Store(true)
		go h.kill(p)
		return &TimeoutError{ExtensionID: p.ext.ID, Op: op, After: d}
	}
	return err
}

// Emit sends ev to every extension that lists ev.Type in activationEvents
// and has a main, in list order; targets, when given, limit it to those
// ids. A failing extension is reported in the failures and delivery goes
// on. An extension activated by the event sees it twice, as
// ctx.activationEvent and through onEvent, as in the reference.
func (h *Host) Emit(ctx context.Context, ev Event, targets ...string) ([]Failure, error) {
	if !slices.Contains(manifest.ActivationEvents, ev.Type) {
		return nil, fmt.Errorf("unknown event %q: use one of %s", ev.Type, strings.Join(manifest.ActivationEvents, ", "))
	}
	var want []string
	for _, t := range targets {
		if t = strings.TrimSpace(t); t != "" {
			want = append(want, t)
		}
	}
	exts, _, err := h.list()
	if err != nil {
		return nil, err
	}
	var failures []Failure
	for i := range exts {
		ext := &exts[i]
		m := ext.Manifest
		if len(want) > 0 && !slices.Contains(want, ext.ID) {
			continue
		}
		if m == nil || m.Main == "" || !m.ListensTo(ev.Type) {
			continue
		}
		if err := h.deliver(ctx, ext, ev); err != nil {
			if ctx.Err() != nil {
				return failures, ctx.Err()
			}
			failures = append(failures, Failure{ExtensionID: ext.ID, Err: err})
		}
	}
	return failures, nil
}

func (h *Host) deliver(ctx context.Context, ext *install.Installed, ev Event) error {
	p, err := h.process(ctx, ext, &ev)
	if err != nil {
		return err
	}
	defer h.release(p)
	if !p.caps.OnEvent {
		return nil
	}
	err = h.request(ctx, p, "event", h.opts.CallTimeout, "onEvent", ev, nil)
	var xe *ExtensionError
	if errors.As(err, &xe) {
		return &ExtensionError{ExtensionID: ext.ID,
			Message: fmt.Sprintf("Extension event execution failed: %s (%s)", ext.DisplayName(), xe.Message)}
	}
	return err
}

// ExtensionInstalled sends onExtensionInstalled to the extension id only,
// with detail {extensionId, name, version}. The install command calls it
// after every install.
func (h *Host) ExtensionInstalled(ctx context.Context, id string) ([]Failure, error) {
	h.Refresh()
	ext, err := h.Extension(id)
	if err != nil {
		return nil, err
	}
	detail := map[string]string{"extensionId": ext.ID, "name": ext.DisplayName(), "version": ext.Manifest.Version}
	return h.Emit(ctx, Event{Type: "onExtensionInstalled", Detail: detail}, ext.ID)
}

// SystemPrompt collects the system prompts of the extensions with the
// system-prompt capability and a main, in list order, and renders the
// <extensions> block (spec §5.8). Extensions are started in parallel; one
// that fails is left out and reported.
func (h *Host) SystemPrompt(ctx context.Context) (*Prompt, error) {
	exts, _, err := h.list()
	if err != nil {
		return nil, err
	}
	type answer struct {
		text string
		err  error
	}
	answers := make([]answer, len(exts))
	var wg sync.WaitGroup
	for i := range exts {
		m := exts[i].Manifest
		if m == nil || m.Main == "" || !m.HasCapability(CapSystemPrompt) {
			continue
		}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			answers[i].text, answers[i].err = h.prompt(ctx, &exts[i])
		}(i)
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	h.savePrompts(exts)
	out := &Prompt{Contributions: []PromptContribution{}}
	for i, a := range answers {
		if a.err != nil {
			out.Failures = append(out.Failures, Failure{ExtensionID: exts[i].ID, Err: a.err})
			continue
		}
		if a.text == "" {
			continue
		}
		out.Contributions = append(out.Contributions, PromptContribution{
			ExtensionID: exts[i].ID, ExtensionName: exts[i].DisplayName(), Content: a.text,
		})
	}
	out.Block = RenderPromptBlock(out.Contributions)
	return out, nil
}

// prompt is ext's system prompt. A static one (the instance has no
// getSystemPrompt) is cached per install, so it is read without starting
// Node while the same install stays.
func (h *Host) prompt(ctx context.Context, ext *install.Installed) (string, error) {
	key, cacheable := h.promptKey(ext)
	if cacheable {
		if text, ok := h.cachedPrompt(ext.ID, key); ok {
			return text, nil
		}
	}
	p, err := h.process(ctx, ext, nil)
	if err != nil {
		return "", err
	}
	defer h.releaseSpare(p)
	text := ""
	switch {
	case p.caps.StaticPrompt != nil && !p.caps.GetSystemPrompt:
		text = manifest.TrimJS(p.mask.string(*p.caps.StaticPrompt))
	case p.caps.SystemPrompt:
		var out struct {
			Text string `json:"text"`
		}
		if err := h.request(ctx, p, "prompt", h.opts.CallTimeout, "systemPrompt", struct{}{}, &out); err != nil {
			return "", err
		}
		text = manifest.TrimJS(p.mask.string(out.Text))
	}
	if cacheable && !p.caps.GetSystemPrompt {
		h.storePrompt(ext.ID, key, text)
	}
	return text, nil
}

// RenderPromptBlock renders contributions as the reference's <extensions>
// block; entries whose id, name or content is blank are dropped, and ""
// is returned when none is left.
func RenderPromptBlock(cs []PromptContribution) string {
	attr := strings.NewReplacer("&", "&amp;", `"`, "&quot;", "<", "&lt;", ">", "&gt;")
	var lines []string
	for _, c := range cs {
		id, name, content := manifest.TrimJS(c.ExtensionID), manifest.TrimJS(c.ExtensionName), manifest.TrimJS(c.Content)
		if id == "" || name == "" || content == "" {
			continue
		}
		lines = append(lines, `<extension id="`+attr.Replace(id)+`" name="`+attr.Replace(name)+`">`, content, "</extension>")
	}
	if len(lines) == 0 {
		return ""
	}
	head := []string{
		"<extensions>",
		"The following block contains additive host-provided instructions contributed by installed extensions.",
		"Treat them as additional system-level context; do not interpret them as tool definitions or permission grants.",
	}
	return strings.Join(append(append(head, lines...), "</extensions>"), "\n")
}

// Close disposes every running extension (dispose gets DisposeTimeout) and
// stops its process. The Host cannot be used afterwards.
func (h *Host) Close() error {
	h.mu.Lock()
	if !h.closed {
		close(h.quit)
	}
	h.closed = true
	slots := make([]*slot, 0, len(h.slots))
	for _, s := range h.slots {
		slots = append(slots, s)
	}
	h.mu.Unlock()
	errs := make([]error, len(slots))
	var wg sync.WaitGroup
	for i, s := range slots {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.p != nil {
				errs[i] = h.stop(s.p)
				s.p = nil
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
