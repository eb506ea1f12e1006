package exthost

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/manifest"
)

// process is one running extension.
type process struct {
	ext  *install.Installed
	cmd  *exec.Cmd
	conn *conn
	caps capabilities
	mask *masker
	// One writer per stream: each holds back its own partial line, so a
	// write to one stream never cuts a secret written to the other.
	stdout, stderr *maskWriter
	log            string

	exited   chan struct{}
	state    string      // how it ended; set before exited is closed
	stopping atomic.Bool // a kill is under way; the next use starts anew
	broken   atomic.Bool // it closed its protocol pipe and was stopped for it

	slot     *slot
	uses     atomic.Int32 // uses begun by Host.process and not yet released
	lastUsed atomic.Int64 // when the last use ended, in Unix nanoseconds
}

// capabilities is what the runner found in the extension's instance.
type capabilities struct {
	Instance     bool     `json:"instance"`
	Tools        []string `json:"tools"`
	InvokeTool   bool     `json:"invokeTool"`
	SystemPrompt bool     `json:"systemPrompt"`
	// GetSystemPrompt says the prompt comes from a function (called each
	// time), not the static systemPrompt.
	GetSystemPrompt bool `json:"getSystemPrompt"`
	// StaticPrompt is the static systemPrompt, trimmed, sent with the
	// answer to activate (nil from a function, or none).
	StaticPrompt *string `json:"staticPrompt"`
	OnEvent      bool    `json:"onEvent"`
	Dispose      bool    `json:"dispose"`
	// ModuleTypeless says Node warned that main is an ES module in a
	// package without "type": "module".
	ModuleTypeless bool `json:"moduleTypeless"`
}

func (p *process) alive() bool {
	if p.stopping.Load() {
		return false
	}
	select {
	case <-p.exited:
		return false
	case <-p.conn.done:
		return false
	default:
		return true
	}
}

// exitError describes how p ended after its protocol pipe closed. It waits
// for the process: watch stops one that closed the pipe but lives on, so
// the state is read only once the process has been waited for.
func (h *Host) exitError(p *process) error {
	<-p.exited
	state := p.state
	if p.broken.Load() {
		state = "closed its protocol pipe; stopped"
	}
	return &ExitError{ExtensionID: p.ext.ID, State: state, LogFile: p.log}
}

// watch stops p when its protocol pipe closes while the process lives on
// (it closed the pipe, or sent a line over the size cap), so no process
// outlives its connection.
func (h *Host) watch(p *process) {
	select {
	case <-p.exited:
		return
	case <-p.conn.done:
	}
	p.stopping.Store(true)
	select {
	case <-p.exited:
		return
	case <-time.After(exitWait):
	}
	p.broken.Store(true)
	h.kill(p)
}

// exitWait is how long a process whose protocol pipe closed gets to exit
// by itself before it is killed.
const exitWait = 500 * time.Millisecond

// process returns the running process of ext, starting it when there is
// none, when the old one ended, or when ext was reinstalled since. It
// begins a use of the process, which the caller ends with h.release.
func (h *Host) process(ctx context.Context, ext *install.Installed, ev *Event) (*process, error) {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil, ErrClosed
	}
	s := h.slots[ext.ID]
	if s == nil {
		s = &slot{}
		h.slots[ext.ID] = s
	}
	h.mu.Unlock()

	s.mu.Lock()
	defer s.mu.Unlock()
	if s.p != nil {
		if s.p.alive() && s.p.ext.InstalledAtUnixMs == ext.InstalledAtUnixMs && s.p.ext.Dir == ext.Dir {
			s.p.uses.Add(1)
			return s.p, nil
		}
		if !s.p.stopping.Load() {
			_ = h.stop(s.p)
		}
		s.p = nil
	}
	ended, err := h.acquireLive(ctx, s)
	if err != nil {
		return nil, err
	}
	if err := h.acquireStart(ctx); err != nil {
		ended()
		return nil, err
	}
	p, err := h.start(ctx, ext, ev, ended)
	h.releaseStart()
	if err != nil {
		return nil, err
	}
	p.slot = s
	p.uses.Add(1)
	s.p = p
	return p, nil
}

func (h *Host) nodePath() (string, error) {
	h.nodeOnce.Do(func() { h.node, h.nodeErr = findNode(h.opts.NodePath, h.getenv) })
	return h.node, h.nodeErr
}

// command is the runner's command for ext: node running the embedded
// runner in the package directory, with the filtered environment, in its
// own process group.
func (h *Host) command(node string, ext *install.Installed) *exec.Cmd {
	cmd := exec.Command(node, "--input-type=module", "--eval", runnerScript)
	cmd.Dir = ext.Dir
	var extra []string
	if h.opts.ExtraEnv != nil {
		extra = h.opts.ExtraEnv(ext.ID)
	}
	cmd.Env = childEnv(h.opts.Environ, extra)
	cmd.SysProcAttr = sysProcAttr()
	cmd.WaitDelay = time.Second
	return cmd
}

// start runs the runner for ext and activates the extension. ended is
// called once the process has exited, or at once when it never ran.
func (h *Host) start(ctx context.Context, ext *install.Installed, ev *Event, ended func()) (*process, error) {
	running := false
	defer func() {
		if !running {
			ended()
		}
	}()
	m := ext.Manifest
	if m.Main == "" {
		return nil, &ExtensionError{ExtensionID: ext.ID, Message: "The extension does not declare main and cannot execute: " + ext.ID}
	}
	mainPath := filepath.Join(ext.Dir, filepath.FromSlash(m.Main))
	if fi, err := os.Stat(mainPath); err != nil || fi.IsDir() {
		return nil, &ExtensionError{ExtensionID: ext.ID, Message: "The extension main file does not exist: " + m.Main}
	}
	node, err := h.nodePath()
	if err != nil {
		return nil, err
	}
	logPath := h.opts.Paths.LogFile(ext.ID)
	if err := os.MkdirAll(filepath.Dir(logPath), 0o700); err != nil {
		return nil, err
	}
	logFile, err := openLog(logPath, cmp.Or(h.opts.MaxLogSize, MaxLogSize))
	if err != nil {
		return nil, err
	}
	p := &process{ext: ext, mask: &masker{}, log: logPath, exited: make(chan struct{})}
	p.stdout = &maskWriter{m: p.mask, w: logFile}
	p.stderr = &maskWriter{m: p.mask, w: &nodeNoise{w: logFile}}
	cmd := h.command(node, ext)
	// Two writers, so exec gives the child two pipes (one writer would be
	// one pipe, where both streams arrive interleaved byte by byte).
	cmd.Stdout, cmd.Stderr = p.stdout, p.stderr
	ch, err := openChannel(cmd)
	if err != nil {
		logFile.Close()
		return nil, err
	}
	fmt.Fprintf(logFile, "--- %s spirit started %s %s\n", time.Now().UTC().Format(time.RFC3339), ext.ID, m.Version)
	err = h.sandbox(ctx, ext, cmd)
	if err == nil {
		err = cmd.Start()
	}
	if err == nil {
		if err = startGroup(cmd); err != nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}
	if err != nil {
		ch.failed()
		logFile.Close()
		return nil, fmt.Errorf("starting node for %s: %w", ext.ID, err)
	}
	ch.started()
	p.cmd = cmd
	running = true
	go func() {
		err := cmd.Wait()
		endGroup(cmd.Process.Pid)
		p.stdout.flush()
		p.stderr.flush()
		logFile.Close()
		ch.close()
		switch {
		case cmd.ProcessState != nil:
			p.state = cmd.ProcessState.String()
		case err != nil:
			p.state = err.Error()
		}
		ended()
		close(p.exited)
	}()
	fromChild, toChild, err := ch.connect(cmd.Process.Pid, p.exited, h.opts.ActivateTimeout)
	if err != nil {
		killGroup(cmd.Process.Pid)
		_ = cmd.Process.Kill()
		<-p.exited
		if cmd.ProcessState != nil && cmd.ProcessState.ExitCode() == exitNodeTooOld {
			if verr := checkNodeVersion(node); verr != nil {
				return nil, verr
			}
		}
		return nil, &ExitError{ExtensionID: ext.ID, State: p.state + " (" + err.Error() + ")", LogFile: logPath}
	}
	p.conn = newConn(fromChild, toChild, h.handler(p))
	go h.watch(p)

	params := map[string]any{
		"info": map[string]any{
			"id": ext.ID, "name": ext.DisplayName(), "version": m.Version, "directoryPath": ext.Dir,
			"manifestPath": filepath.Join(ext.Dir, "package.json"), "main": m.Main,
		},
		"mainPath": mainPath,
	}
	if ev != nil {
		params["activationEvent"] = ev
	}
	if err := h.request(ctx, p, "activate", h.opts.ActivateTimeout, "activate", params, &p.caps); err != nil {
		var xe *ExitError
		if errors.As(err, &xe) {
			if p.cmd.ProcessState != nil && p.cmd.ProcessState.ExitCode() == exitNodeTooOld {
				err = checkNodeVersion(node)
				if err == nil {
					err = &NodeVersionError{Path: node, Version: "(unknown)"}
				}
			} else if verr := checkNodeVersion(node); verr != nil {
				err = verr
			}
		}
		var te *TimeoutError
		if !errors.As(err, &te) {
			_ = h.stop(p)
		}
		return nil, err
	}
	return p, nil
}

// stop disposes p (when it has dispose and still runs) and ends it with
// everything it spawned: the runner exits when its input closes; if it has
// not within DisposeTimeout it is killed (kill).
func (h *Host) stop(p *process) error {
	var err error
	if p.alive() && p.caps.Dispose {
		ctx, cancel := context.WithTimeout(context.Background(), h.opts.DisposeTimeout)
		err = p.conn.call(ctx, "dispose", struct{}{}, nil)
		cancel()
		var re *rpcError
		switch {
		case errors.As(err, &re):
			err = &ExtensionError{ExtensionID: p.ext.ID, Message: fmt.Sprintf("dispose of %s failed: %s", p.ext.ID, p.mask.string(re.Message))}
		case errors.Is(err, context.DeadlineExceeded):
			err = &TimeoutError{ExtensionID: p.ext.ID, Op: "dispose", After: h.opts.DisposeTimeout}
		case errors.Is(err, errConnClosed):
			err = nil
		}
	}
	// After a cancelled call, wait (at most KillGrace) for an answer to a
	// request sent behind its $/cancelRequest: the runner reads in order,
	// so then the tool's abort signal has fired, before the processes are
	// stopped below. Any answer will do (the method is unknown to it).
	if p.conn.cancelled.Load() && p.alive() {
		ctx, cancel := context.WithTimeout(context.Background(), h.opts.KillGrace)
		_ = p.conn.call(ctx, "$/ping", struct{}{}, nil)
		cancel()
	}
	// What it spawned goes first: once the runner exits, a detached child
	// is no longer below it and cannot be found.
	killDescendants(p.cmd.Process.Pid)
	_ = p.conn.close()
	select {
	case <-p.exited:
		killGroup(p.cmd.Process.Pid)
		return err
	case <-time.After(h.opts.DisposeTimeout):
	}
	h.kill(p)
	return err
}

// kill ends p and everything it spawned: the processes below it (also
// those that left its process group) get SIGKILL at once; its process
// group gets SIGTERM and, KillGrace later, SIGKILL.
func (h *Host) kill(p *process) {
	p.stopping.Store(true)
	_ = p.conn.close()
	pid := p.cmd.Process.Pid
	killDescendants(pid)
	select {
	case <-p.exited:
		killGroup(pid)
		return
	default:
	}
	if err := termGroup(pid); err != nil {
		_ = p.cmd.Process.Kill()
	}
	select {
	case <-p.exited:
	case <-time.After(h.opts.KillGrace):
	}
	killGroup(pid)
	<-p.exited
}

// handler answers the runner's settings and secrets requests for p.
func (h *Host) handler(p *process) handlerFunc {
	m := p.ext.Manifest
	return func(ctx context.Context, method string, params json.RawMessage) (any, error) {
		var in struct {
			Key    string          `json:"key"`
			Value  json.RawMessage `json:"value"`
			Values json.RawMessage `json:"values"`
			// Undefined lists the keys whose value was undefined in JavaScript
			// (sent as null).
			Undefined []string `json:"undefined"`
		}
		if len(params) > 0 {
			if err := json.Unmarshal(params, &in); err != nil {
				return nil, err
			}
		}
		switch method {
		case "ready":
			return nil, nil
		case "settings/get", "settings/getAll":
			all, err := h.settings.GetAllChecked(m)
			if err != nil {
				return nil, err
			}
			if method == "settings/get" {
				return map[string]any{"value": all[in.Key]}, nil
			}
			return map[string]any{"values": ordered(m, all)}, nil
		case "settings/set", "settings/setAll":
			keys, values := []string{in.Key}, map[string]any{}
			if method == "settings/set" {
				var v any
				if len(in.Value) > 0 {
					if err := json.Unmarshal(in.Value, &v); err != nil {
						return nil, err
					}
				}
				values[in.Key] = v
			} else {
				var err error
				keys, values, err = orderedObject(in.Values)
				if err != nil {
					return nil, errors.New("settings.setAll needs an object of values")
				}
			}
			for _, k := range in.Undefined {
				if _, ok := values[k]; ok {
					values[k] = Undefined{}
				}
			}
			all, err := h.settings.SetAll(m, keys, values)
			if err != nil {
				return nil, err
			}
			// The apps write, then normalise what is stored, which throws on
			// another key's drifted value.
			if _, err := h.settings.GetAllChecked(m); err != nil {
				return nil, err
			}
			return map[string]any{"values": ordered(m, all)}, nil
		case "secrets/get", "secrets/has", "secrets/set", "secrets/delete":
			return h.secretCall(p, method, in.Key, in.Value)
		}
		return nil, fmt.Errorf("unknown method %s", method)
	}
}

func (h *Host) secretCall(p *process, method, key string, raw json.RawMessage) (any, error) {
	m := p.ext.Manifest
	if err := checkSlot(m, key); err != nil {
		return nil, err
	}
	sec := h.opts.Secrets
	if sec == nil {
		switch method {
		case "secrets/set":
			return nil, fmt.Errorf("The current host does not implement extension secret storage: %s", m.ID)
		case "secrets/has":
			return map[string]any{"value": false}, nil
		}
		return map[string]any{}, nil
	}
	switch method {
	case "secrets/get", "secrets/has":
		v, ok, err := sec.Get(m, key)
		if err != nil {
			return nil, err
		}
		if method == "secrets/has" {
			return map[string]any{"value": ok}, nil
		}
		if !ok {
			return map[string]any{}, nil
		}
		p.mask.add(v)
		return map[string]any{"value": v}, nil
	case "secrets/set":
		var v string
		_ = json.Unmarshal(raw, &v)
		p.mask.add(manifest.TrimJS(v))
		return map[string]any{}, sec.Set(m, key, v)
	default:
		return map[string]any{}, sec.Delete(m, key)
	}
}

// orderedObject decodes a JSON object keeping its key order.
func orderedObject(raw json.RawMessage) ([]string, map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, nil, errors.New("not an object")
	}
	var keys []string
	values := map[string]any{}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		k := kt.(string)
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		if _, dup := values[k]; !dup {
			keys = append(keys, k)
		}
		values[k] = v
	}
	return keys, values, nil
}

// SuperviseCommand is spirit's hidden command that runs Supervise; the
// command line must route it there.
const SuperviseCommand = "__supervise"
