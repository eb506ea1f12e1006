//go:build unix

package exthost

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spiritagents/spirit/internal/testutil/fixture"
	"github.com/spiritagents/spirit/paths"
)

// writeExtension installs a generated extension into p: package.json with
// the given version and capabilities, and main index.mjs as given.
func writeExtension(t testing.TB, p *paths.Paths, id, version, description string, caps []string, main string) {
	t.Helper()
	src := filepath.Join(t.TempDir(), id)
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	pkg := map[string]any{
		"name": id, "version": version, "main": "index.mjs", "description": description,
		"spiritExtension": map[string]any{
			"displayName":           id,
			"supportedHosts":        []string{"cli", "desktop"},
			"requestedCapabilities": caps,
			"contributes": map[string]any{"tools": []any{map[string]any{
				"name": "pid", "description": "The runner's pid.", "inputSchema": map[string]any{"type": "object"},
			}}},
		},
	}
	b, _ := json.MarshalIndent(pkg, "", "  ")
	if err := os.WriteFile(filepath.Join(src, "package.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "index.mjs"), []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(p.PackageDir(id)); err != nil {
		t.Fatal(err)
	}
	fixture.Install(t, p, src)
}

const pidMain = `export function activate() { return { tools: { pid: () => String(process.pid) } }; }`

func callPid(t *testing.T, h *Host) int {
	t.Helper()
	res, err := h.Call(context.Background(), CallRequest{Name: "idle/pid"})
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(res.Text)
	if err != nil {
		t.Fatalf("pid tool answered %q", res.Text)
	}
	return pid
}

func TestIdleProcessStopsAndRestarts(t *testing.T) {
	p := paths.New(t.TempDir(), paths.HostCLI)
	writeExtension(t, p, "idle", "1.0.0", "", []string{CapToolDefinitions, CapToolExecution}, pidMain)
	stopped := make(chan string, 4)
	h := newTestHost(t, p, func(o *Options) { o.IdleTimeout = 50 * time.Millisecond })
	h.idleStopped = func(id string) { stopped <- id }

	first := callPid(t, h)
	select {
	case id := <-stopped:
		if id != "idle" {
			t.Fatalf("stopped %q, want idle", id)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the idle process was not stopped")
	}
	if err := syscall.Kill(first, 0); err == nil {
		t.Fatalf("process %d still runs after its idle stop", first)
	}
	second := callPid(t, h)
	if second == first {
		t.Fatalf("the call after the idle stop reached the old process %d", first)
	}
}

func TestBusyProcessIsNotIdle(t *testing.T) {
	p := paths.New(t.TempDir(), paths.HostCLI)
	main := `export function activate() { return { tools: { pid: async () => {
  await new Promise((r) => setTimeout(r, 400));
  return String(process.pid);
} } }; }`
	writeExtension(t, p, "idle", "1.0.0", "", []string{CapToolDefinitions, CapToolExecution}, main)
	h := newTestHost(t, p, func(o *Options) { o.IdleTimeout = 20 * time.Millisecond })
	// A stop while the call is in flight would fail it.
	callPid(t, h)
}

func TestIdleImmediateStopsAfterPrompt(t *testing.T) {
	p := paths.New(t.TempDir(), paths.HostCLI)
	const n = 4
	for i := range n {
		writeExtension(t, p, fmt.Sprintf("dyn-%d", i), "1.0.0", "", []string{CapSystemPrompt},
			`export function activate() { return { getSystemPrompt: () => 'pid ' + process.pid }; }`)
	}
	stopped := make(chan string, n)
	h := newTestHost(t, p, func(o *Options) { o.IdleTimeout = IdleImmediate })
	h.idleStopped = func(id string) { stopped <- id }
	pr, err := h.SystemPrompt(context.Background())
	if err != nil || len(pr.Contributions) != n {
		t.Fatalf("prompt: %v, %d contributions", err, len(pr.Contributions))
	}
	for range n {
		select {
		case <-stopped:
		case <-time.After(20 * time.Second):
			t.Fatal("a process was not stopped after its prompt")
		}
	}
	for _, c := range pr.Contributions {
		pid, _ := strconv.Atoi(strings.TrimPrefix(c.Content, "pid "))
		if pid == 0 || syscall.Kill(pid, 0) == nil {
			t.Errorf("%s: process %q still runs", c.ExtensionID, c.Content)
		}
	}
}

// countingMain is an extension whose prompt says how many times it was
// activated (it counts in a file beside it).
func countingMain(counter, kind string) string {
	return fmt.Sprintf(`import fs from 'node:fs';
export function activate() {
  fs.appendFileSync(%q, 'x');
  const n = fs.readFileSync(%q, 'utf8').length;
  return %s;
}`, counter, counter, map[string]string{
		"static":  "{ systemPrompt: 'activated ' + n }",
		"dynamic": "{ getSystemPrompt: () => 'activated ' + n }",
	}[kind])
}

func promptOf(t *testing.T, p *paths.Paths, id string) string {
	t.Helper()
	h := newTestHost(t, p, nil)
	pr, err := h.SystemPrompt(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(pr.Failures) > 0 {
		t.Fatalf("failures: %v", pr.Failures[0].Err)
	}
	for _, c := range pr.Contributions {
		if c.ExtensionID == id {
			if err := h.Close(); err != nil {
				t.Fatal(err)
			}
			return c.Content
		}
	}
	t.Fatalf("no prompt of %s in %+v", id, pr.Contributions)
	return ""
}

func TestStaticPromptCache(t *testing.T) {
	p := paths.New(t.TempDir(), paths.HostCLI)
	counter := filepath.Join(t.TempDir(), "activations")
	main := countingMain(counter, "static")
	writeExtension(t, p, "static", "1.0.0", "", []string{CapSystemPrompt}, main)

	steps := []struct {
		name    string
		install func()
		want    string
	}{
		{"first run starts node", nil, "activated 1"},
		{"second run reads the cache", nil, "activated 1"},
		{"reinstall with another version", func() {
			writeExtension(t, p, "static", "1.0.1", "", []string{CapSystemPrompt}, main)
		}, "activated 2"},
		{"cached again", nil, "activated 2"},
		{"reinstall with another manifest, same version", func() {
			writeExtension(t, p, "static", "1.0.1", "changed", []string{CapSystemPrompt}, main)
		}, "activated 3"},
		{"cached once more", nil, "activated 3"},
	}
	for _, st := range steps {
		if st.install != nil {
			st.install()
		}
		if got := promptOf(t, p, "static"); got != st.want {
			t.Fatalf("%s: prompt %q, want %q", st.name, got, st.want)
		}
	}
}

func TestGetSystemPromptIsNotCached(t *testing.T) {
	p := paths.New(t.TempDir(), paths.HostCLI)
	counter := filepath.Join(t.TempDir(), "activations")
	writeExtension(t, p, "dynamic", "1.0.0", "", []string{CapSystemPrompt}, countingMain(counter, "dynamic"))
	for i := 1; i <= 2; i++ {
		if got, want := promptOf(t, p, "dynamic"), fmt.Sprintf("activated %d", i); got != want {
			t.Fatalf("run %d: prompt %q, want %q", i, got, want)
		}
	}
}

func TestGarbledPromptCacheIsIgnored(t *testing.T) {
	p := paths.New(t.TempDir(), paths.HostCLI)
	counter := filepath.Join(t.TempDir(), "activations")
	writeExtension(t, p, "static", "1.0.0", "", []string{CapSystemPrompt}, countingMain(counter, "static"))
	h := newTestHost(t, p, nil)
	if err := os.MkdirAll(p.SpiritDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, garbage := range []string{"{", "[]", `{"static":{"text":7}}`, "\x00\xff"} {
		if err := os.WriteFile(h.promptCacheFile(), []byte(garbage), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := promptOf(t, p, "static"); !strings.HasPrefix(got, "activated ") {
			t.Fatalf("cache %q: prompt %q", garbage, got)
		}
	}
}

// TestStartsAreBounded checks that no more extensions start at once than
// startSlots: each activation records how many were activating beside it.
func TestStartsAreBounded(t *testing.T) {
	p := paths.New(t.TempDir(), paths.HostCLI)
	dir := t.TempDir()
	n := startSlots() + 6
	for i := range n {
		main := fmt.Sprintf(`import fs from 'node:fs';
export async function activate() {
  const me = %q + '/active-' + process.pid;
  fs.writeFileSync(me, '');
  await new Promise((r) => setTimeout(r, 150));
  const beside = fs.readdirSync(%q).filter((f) => f.startsWith('active-')).length;
  fs.writeFileSync(%q + '/max-' + process.pid, String(beside));
  fs.rmSync(me);
  return { getSystemPrompt: () => 'x' };
}`, dir, dir, dir)
		writeExtension(t, p, fmt.Sprintf("start-%d", i), "1.0.0", "", []string{CapSystemPrompt}, main)
	}
	h := newTestHost(t, p, nil)
	if _, err := h.SystemPrompt(context.Background()); err != nil {
		t.Fatal(err)
	}
	ents, _ := filepath.Glob(filepath.Join(dir, "max-*"))
	if len(ents) != n {
		t.Fatalf("%d activations recorded, want %d", len(ents), n)
	}
	for _, e := range ents {
		b, _ := os.ReadFile(e)
		if k, _ := strconv.Atoi(string(b)); k > startSlots() {
			t.Fatalf("%d extensions were activating at once, more than %d", k, startSlots())
		}
	}
}

// The runner makes a call's AbortController only when the handler reads
// ctx.signal; a cancelled call still aborts it.
func TestCancelledCallAbortsLazySignal(t *testing.T) {
	dir := t.TempDir()
	started, aborted := filepath.Join(dir, "started"), filepath.Join(dir, "aborted")
	for _, f := range []string{started, aborted} {
		if err := syscall.Mkfifo(f, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	p := paths.New(t.TempDir(), paths.HostCLI)
	main := fmt.Sprintf(`import fs from 'node:fs';
export function activate() { return { tools: { pid: (ctx) => new Promise((resolve) => {
  ctx.signal.addEventListener('abort', () => { fs.writeFileSync(%q, 'aborted'); resolve('x'); });
  fs.writeFileSync(%q, 'started');
}) } }; }`, aborted, started)
	writeExtension(t, p, "idle", "1.0.0", "", []string{CapToolDefinitions, CapToolExecution}, main)
	h := newTestHost(t, p, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := h.Call(ctx, CallRequest{Name: "idle/pid"})
		done <- err
	}()
	if b, err := os.ReadFile(started); err != nil || string(b) != "started" {
		t.Fatalf("started: %q, %v", b, err)
	}
	cancel()
	if err := <-done; err != context.Canceled {
		t.Fatalf("call: %v, want context.Canceled", err)
	}
	if b, err := os.ReadFile(aborted); err != nil || string(b) != "aborted" {
		t.Fatalf("aborted: %q, %v", b, err)
	}
}

// A tool installed after the list was read is found at once, though the
// list's stamps are read at most every staleCheck.
func TestNewToolFoundWithinStaleCheck(t *testing.T) {
	p := paths.New(t.TempDir(), paths.HostCLI)
	writeExtension(t, p, "idle", "1.0.0", "", []string{CapToolDefinitions, CapToolExecution}, pidMain)
	h := newTestHost(t, p, nil)
	callPid(t, h)
	writeExtension(t, p, "later", "1.0.0", "", []string{CapToolDefinitions, CapToolExecution}, pidMain)
	if _, err := h.Call(context.Background(), CallRequest{Name: "later/pid"}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Extension("later"); err != nil {
		t.Fatal(err)
	}
}

// A static prompt comes with the answer to activate (trimmed as the
// systemPrompt call trims it), so it is known without another round trip;
// a getSystemPrompt function's is not sent then.
func TestStaticPromptComesWithActivate(t *testing.T) {
	p := paths.New(t.TempDir(), paths.HostCLI)
	writeExtension(t, p, "static", "1.0.0", "", []string{CapSystemPrompt}, `export function activate() { return { systemPrompt: '  hello  ' }; }`)
	writeExtension(t, p, "dynamic", "1.0.0", "", []string{CapSystemPrompt}, `export function activate() { return { systemPrompt: 'no', getSystemPrompt: () => 'yes' }; }`)
	// Over the runner's 1 MiB for a prompt sent with activate: read with
	// systemPrompt, as before.
	writeExtension(t, p, "huge", "1.0.0", "", []string{CapSystemPrompt}, `export function activate() { return { systemPrompt: 'h'.repeat(2 << 20) }; }`)
	h := newTestHost(t, p, nil)
	for id, want := range map[string]string{"static": "hello", "dynamic": "", "huge": ""} {
		pr, err := h.process(context.Background(), mustExt(t, h, id), nil)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if pr.caps.StaticPrompt != nil {
			got = *pr.caps.StaticPrompt
		}
		h.release(pr)
		if got != want {
			t.Errorf("%s: static prompt with activate %q, want %q", id, got, want)
		}
	}
	if got := promptOf(t, p, "dynamic"); got != "yes" {
		t.Errorf("dynamic prompt %q, want yes", got)
	}
	if got := promptOf(t, p, "huge"); got != strings.Repeat("h", 2<<20) {
		t.Errorf("huge prompt of %d bytes, want %d", len(got), 2<<20)
	}
}

// At MaxProcesses, starting another extension stops the least recently
// used idle one; the others keep their processes.
func TestMaxProcessesStopsLeastRecentlyUsed(t *testing.T) {
	p := paths.New(t.TempDir(), paths.HostCLI)
	for _, id := range []string{"a", "b", "c"} {
		writeExtension(t, p, id, "1.0.0", "", []string{CapToolDefinitions, CapToolExecution}, pidMain)
	}
	stopped := make(chan string, 4)
	h := newTestHost(t, p, func(o *Options) { o.MaxProcesses = 2 })
	h.idleStopped = func(id string) { stopped <- id }
	pid := func(id string) int {
		t.Helper()
		res, err := h.Call(context.Background(), CallRequest{Name: id + "/pid"})
		if err != nil {
			t.Fatal(err)
		}
		n, _ := strconv.Atoi(res.Text)
		return n
	}
	a := pid("a")
	b := pid("b")
	if again := pid("a"); again != a {
		t.Fatalf("a moved from process %d to %d below the bound", a, again)
	}
	pid("c")
	select {
	case id := <-stopped:
		if id != "b" {
			t.Fatalf("stopped %s, want b (the least recently used)", id)
		}
	default:
		t.Fatal("starting a third extension at MaxProcesses 2 stopped none")
	}
	if syscall.Kill(b, 0) == nil {
		t.Fatalf("b's process %d still runs", b)
	}
	if again := pid("a"); again != a {
		t.Fatalf("a was restarted (%d, then %d); b was the one to stop", a, again)
	}
}

// At MaxProcesses with every process busy, a start waits for a call to
// end instead of stopping a process under it.
func TestMaxProcessesWaitsForBusyProcess(t *testing.T) {
	dir := t.TempDir()
	started := filepath.Join(dir, "started")
	if err := syscall.Mkfifo(started, 0o600); err != nil {
		t.Fatal(err)
	}
	p := paths.New(t.TempDir(), paths.HostCLI)
	slow := fmt.Sprintf(`import fs from 'node:fs';
export function activate() { return { tools: { pid: async () => {
  fs.writeFileSync(%q, 'started');
  await new Promise((r) => setTimeout(r, 300));
  return String(process.pid);
} } }; }`, started)
	writeExtension(t, p, "slow", "1.0.0", "", []string{CapToolDefinitions, CapToolExecution}, slow)
	writeExtension(t, p, "next", "1.0.0", "", []string{CapToolDefinitions, CapToolExecution}, pidMain)
	h := newTestHost(t, p, func(o *Options) { o.MaxProcesses = 1 })
	type answer struct {
		res *Result
		err error
	}
	done := make(chan answer, 1)
	go func() {
		res, err := h.Call(context.Background(), CallRequest{Name: "slow/pid"})
		done <- answer{res, err}
	}()
	if b, err := os.ReadFile(started); err != nil || string(b) != "started" {
		t.Fatalf("started: %q, %v", b, err)
	}
	if _, err := h.Call(context.Background(), CallRequest{Name: "next/pid"}); err != nil {
		t.Fatal(err)
	}
	var a answer
	select {
	case a = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the first call did not end")
	}
	if a.err != nil {
		t.Fatalf("the busy call failed: %v", a.err)
	}
	if pid, _ := strconv.Atoi(a.res.Text); pid == 0 || syscall.Kill(pid, 0) == nil {
		t.Fatalf("the first process (%q) still runs beside the second at MaxProcesses 1", a.res.Text)
	}
}

// WarmPrompt caches a static prompt, so the next host's SystemPrompt
// activates nothing; a getSystemPrompt function is not cached.
func TestWarmPrompt(t *testing.T) {
	p := paths.New(t.TempDir(), paths.HostCLI)
	counter := filepath.Join(t.TempDir(), "activations")
	writeExtension(t, p, "static", "1.0.0", "", []string{CapSystemPrompt}, countingMain(counter, "static"))
	dynCounter := filepath.Join(t.TempDir(), "dyn-activations")
	writeExtension(t, p, "dynamic", "1.0.0", "", []string{CapSystemPrompt}, countingMain(dynCounter, "dynamic"))
	writeExtension(t, p, "tools-only", "1.0.0", "", []string{CapToolDefinitions, CapToolExecution}, pidMain)
	h := newTestHost(t, p, nil)
	for id, want := range map[string]bool{"static": true, "dynamic": false, "tools-only": false} {
		got, err := h.WarmPrompt(context.Background(), id)
		if err != nil || got != want {
			t.Errorf("WarmPrompt(%s) = %v, %v; want %v", id, got, err, want)
		}
	}
	if _, err := h.WarmPrompt(context.Background(), "missing"); err == nil {
		t.Error("WarmPrompt of an extension that is not installed succeeded")
	}
	if got := promptOf(t, p, "static"); got != "activated 1" {
		t.Fatalf("prompt after WarmPrompt: %q, want the warmed %q", got, "activated 1")
	}
	if b, _ := os.ReadFile(counter); string(b) != "x" {
		t.Fatalf("static was activated %d times, want once (by WarmPrompt)", len(b))
	}
}
