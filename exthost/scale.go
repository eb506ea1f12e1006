package exthost

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spiritagents/spirit/install"
)

// IdleImmediate, as Options.IdleTimeout, stops an extension's process as
// soon as no call to it is in flight (for one-shot commands that visit
// many extensions once each).
const IdleImmediate time.Duration = -1

// DefaultIdleTimeout is the idle timeout of long-running hosts (mcp serve).
const DefaultIdleTimeout = 5 * time.Minute

// startSlots is how many extension processes may be starting at once:
// two per core. A start is not all CPU: Node's main thread sleeps for ~45 %
// of its start (perf sched: 109 ms waiting, 136 ms running, 0.3 ms
// queued), so one per core left the CPU idle (100 cold prompts: 23.4 s
// against 16.0 s with two per core, medians of 3 alternating rounds). More
// measured faster on this shared machine (12.4 s with four per core), but
// that is the scheduler's autogroups: bwrap gives each extension a session,
// hence a CPU share, of its own, so more of them take more of a machine
// others load; on an idle one two per core should already keep it busy
// (each start is on the CPU about half the time), and each start holds a
// Node process of ~45 MB (peak RSS of 100 cold prompts: 220 MB with two
// per core, 346 MB with four).
func startSlots() int { return 2 * max(runtime.NumCPU(), 1) }

// DefaultMaxProcesses is the default of Options.MaxProcesses: three
// extension processes per core, a little over the two per core that may
// be starting at once (startSlots), so a start seldom waits for a stop.
// Each costs ~45 MB (a Node process) under bubblewrap and ~70 MB summed
// RSS under Landlock, where a supervisor (a Go process, ~28 MB of it
// spirit's binary, shared) runs beside it; with four per core, a cold
// mcp serve of 100 extensions peaked at 630 MB summed RSS on 2 cores under
// Landlock, over the 600 MB it must keep to (it was 4.4 GB with no bound).
func DefaultMaxProcesses() int { return 3 * max(runtime.NumCPU(), 1) }

// acquireStart waits for a start slot while ctx lasts.
func (h *Host) acquireStart(ctx context.Context) error {
	select {
	case h.starting <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (h *Host) releaseStart() { <-h.starting }

// liveSet counts the extension processes that exist: from before their
// start until they have exited (stopping ones included), so the bound is
// one on what the operating system holds, not on what the host uses.
type liveSet struct {
	max     int // <= 0: no bound
	mu      sync.Mutex
	n       int
	changed chan struct{} // closed (and replaced) when n falls or a process goes idle
	waiting atomic.Int32  // starts waiting for room
}

// signal wakes the starts that wait for room.
func (l *liveSet) signal() {
	l.mu.Lock()
	close(l.changed)
	l.changed = make(chan struct{})
	l.mu.Unlock()
}

// acquireLive takes room for one more process, for slot self. When the
// bound is reached it stops the least recently used idle process of
// another extension; when none is idle it waits until a process ends or
// goes idle, while ctx lasts.
func (h *Host) acquireLive(ctx context.Context, self *slot) (release func(), err error) {
	l := &h.live
	for {
		l.mu.Lock()
		if l.max <= 0 || l.n < l.max {
			l.n++
			l.mu.Unlock()
			var once sync.Once
			return func() { once.Do(h.releaseLive) }, nil
		}
		changed := l.changed
		l.waiting.Add(1)
		l.mu.Unlock()
		if !h.evictIdle(self) {
			select {
			case <-changed:
			case <-h.quit:
				l.waiting.Add(-1)
				return nil, ErrClosed
			case <-ctx.Done():
				l.waiting.Add(-1)
				return nil, ctx.Err()
			}
		}
		l.waiting.Add(-1)
	}
}

// releaseLive gives back the room of a process that ended (or never ran).
func (h *Host) releaseLive() {
	l := &h.live
	l.mu.Lock()
	l.n--
	close(l.changed)
	l.changed = make(chan struct{})
	l.mu.Unlock()
}

// evictIdle stops the least recently used idle process of any slot but
// self, and reports whether it stopped one. Slots are only tried (never
// waited for), so two starts that evict cannot wait on each other.
func (h *Host) evictIdle(self *slot) bool {
	h.mu.Lock()
	slots := make([]*slot, 0, len(h.slots))
	for _, s := range h.slots {
		if s != self {
			slots = append(slots, s)
		}
	}
	h.mu.Unlock()
	var victim *slot
	var oldest int64
	for _, s := range slots {
		if !s.mu.TryLock() {
			continue
		}
		p := s.p
		s.mu.Unlock()
		if p == nil || p.uses.Load() != 0 || !p.alive() {
			continue
		}
		if t := p.lastUsed.Load(); victim == nil || t < oldest {
			victim, oldest = s, t
		}
	}
	if victim == nil || !victim.mu.TryLock() {
		return false
	}
	defer victim.mu.Unlock()
	p := victim.p
	if p == nil || p.uses.Load() != 0 {
		return false
	}
	return h.stopIdleLocked(victim, p, 0)
}

// release ends one use of p that h.process began. With IdleImmediate the
// last use stops the process; otherwise a start waiting for room is told
// that p may now be stopped for it.
func (h *Host) release(p *process) {
	p.lastUsed.Store(time.Now().UnixNano())
	if p.uses.Add(-1) != 0 {
		return
	}
	switch {
	case h.opts.IdleTimeout < 0:
		go h.stopIdle(p.slot, p, 0)
	case h.live.waiting.Load() > 0:
		h.live.signal()
	}
}

// releaseSpare is release for a use after which p is not expected to be
// needed soon (it was started to read a system prompt, which is now
// cached or read): when starts are waiting for room, p is stopped at once
// for them, instead of by the next start, which would wait for the stop.
func (h *Host) releaseSpare(p *process) {
	if h.live.waiting.Load() == 0 || h.opts.IdleTimeout < 0 {
		h.release(p)
		return
	}
	p.lastUsed.Store(time.Now().UnixNano())
	if p.uses.Add(-1) == 0 {
		go h.stopIdle(p.slot, p, 0)
	}
}

// stopIdle stops p, the process of s, when no use of it is in flight and
// its last use ended at least idle ago. It reports whether it stopped p.
func (h *Host) stopIdle(s *slot, p *process, idle time.Duration) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return h.stopIdleLocked(s, p, idle)
}

func (h *Host) stopIdleLocked(s *slot, p *process, idle time.Duration) bool {
	if s.p != p || p.uses.Load() != 0 || time.Since(time.Unix(0, p.lastUsed.Load())) < idle {
		return false
	}
	s.p = nil
	if p.alive() {
		_ = h.stop(p)
	}
	if h.idleStopped != nil {
		h.idleStopped(p.ext.ID)
	}
	return true
}

// reap stops the processes idle for IdleTimeout until Close.
func (h *Host) reap() {
	idle := h.opts.IdleTimeout
	t := time.NewTicker(max(idle/4, 10*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-h.quit:
			return
		case <-t.C:
		}
		h.mu.Lock()
		var busy []*slot
		for _, s := range h.slots {
			busy = append(busy, s)
		}
		h.mu.Unlock()
		for _, s := range busy {
			if !s.mu.TryLock() {
				continue // starting or stopping: not idle
			}
			p := s.p
			s.mu.Unlock()
			if p != nil {
				h.stopIdle(s, p, idle)
			}
		}
	}
}

// promptCacheFile is where static system prompts are kept between runs.
func (h *Host) promptCacheFile() string {
	return filepath.Join(h.opts.Paths.SpiritDir(), "prompt-cache.json")
}

// maxPromptCache bounds the prompt cache file read.
const maxPromptCache = 32 << 20

// promptEntry is one extension's static system prompt, valid while the
// install it was read from is the one installed: same version, same
// package directory and install time, same package.json bytes.
type promptEntry struct {
	Version        string `json:"version"`
	Dir            string `json:"dir"`
	InstalledAt    int64  `json:"installedAt"`
	ManifestDigest string `json:"manifestDigest"`
	Text           string `json:"text"`
}

// promptCache holds the static system prompts by extension id. A prompt
// from getSystemPrompt is never cached: the apps call it every time.
type promptCache struct {
	mu      sync.Mutex
	loaded  bool
	dirty   bool
	entries map[string]promptEntry
}

// promptKey is the cache entry ext's prompt would have, without text; ok
// is false when ext cannot be cached (a --dev package outside the
// extensions directory, whose code changes without a reinstall).
func (h *Host) promptKey(ext *install.Installed) (promptEntry, bool) {
	root := h.opts.Paths.ExtensionsDir() + string(filepath.Separator)
	if ext.Manifest == nil || !strings.HasPrefix(ext.Dir, root) {
		return promptEntry{}, false
	}
	f, err := os.Open(filepath.Join(ext.Dir, "package.json"))
	if err != nil {
		return promptEntry{}, false
	}
	defer f.Close()
	sum := sha256.New()
	if _, err := io.Copy(sum, io.LimitReader(f, maxPromptCache)); err != nil {
		return promptEntry{}, false
	}
	return promptEntry{
		Version: ext.Manifest.Version, Dir: ext.Dir, InstalledAt: ext.InstalledAtUnixMs,
		ManifestDigest: "sha256-" + hex.EncodeToString(sum.Sum(nil)),
	}, true
}

// cachedPrompt returns the cached static prompt of ext, if its key matches.
func (h *Host) cachedPrompt(id string, key promptEntry) (string, bool) {
	c := &h.prompts
	c.mu.Lock()
	defer c.mu.Unlock()
	h.loadPromptsLocked()
	e, ok := c.entries[id]
	if !ok {
		return "", false
	}
	text := e.Text
	e.Text = ""
	if e != key {
		return "", false
	}
	return text, true
}

func (h *Host) storePrompt(id string, key promptEntry, text string) {
	c := &h.prompts
	c.mu.Lock()
	defer c.mu.Unlock()
	h.loadPromptsLocked()
	key.Text = text
	if c.entries[id] != key {
		c.entries[id] = key
		c.dirty = true
	}
}

// loadPromptsLocked reads the cache file once. A missing, unreadable or
// garbled file is an empty cache: it is only ever a shortcut.
func (h *Host) loadPromptsLocked() {
	c := &h.prompts
	if c.loaded {
		return
	}
	c.loaded = true
	c.entries = map[string]promptEntry{}
	f, err := os.Open(h.promptCacheFile())
	if err != nil {
		return
	}
	defer f.Close()
	var on map[string]promptEntry
	if err := json.NewDecoder(io.LimitReader(f, maxPromptCache)).Decode(&on); err == nil && on != nil {
		c.entries = on
	}
}

// savePrompts writes the cache when it changed, keeping only the
// extensions in listed (so it does not grow with removed ones). A failure
// to write is ignored: the next run collects the prompts again.
func (h *Host) savePrompts(listed []install.Installed) {
	c := &h.prompts
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.dirty {
		return
	}
	keep := make(map[string]promptEntry, len(listed))
	for i := range listed {
		if e, ok := c.entries[listed[i].ID]; ok {
			keep[listed[i].ID] = e
		}
	}
	b, err := json.Marshal(keep)
	if err != nil {
		return
	}
	path := h.promptCacheFile()
	if err := writeFileAtomic(path, b); err == nil {
		c.dirty = false
	}
}

// writeFileAtomic replaces path with b through a temporary file and a rename.
func writeFileAtomic(path string, b []byte) error {
	// 0o755, as the installer makes it.
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".prompt-cache-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(b)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

// WarmPrompt reads the static system prompt of the installed extension id
// into the prompt cache, so that the next SystemPrompt (a prompt command,
// an mcp serve's initialize) starts no Node process for it. The install
// commands call it after an install or update. It reports whether the
// prompt is cached now: an extension without main or the system-prompt
// capability, whose prompt is a getSystemPrompt function, or run from
// outside the extensions directory (--dev) has nothing to cache.
func (h *Host) WarmPrompt(ctx context.Context, id string) (bool, error) {
	ext, err := h.Extension(id)
	if err != nil {
		return false, err
	}
	if m := ext.Manifest; m.Main == "" || !m.HasCapability(CapSystemPrompt) {
		return false, nil
	}
	key, ok := h.promptKey(ext)
	if !ok {
		return false, nil
	}
	if _, ok := h.cachedPrompt(ext.ID, key); ok {
		return true, nil
	}
	if _, err := h.prompt(ctx, ext); err != nil {
		return false, err
	}
	exts, _, err := h.list()
	if err != nil {
		return false, err
	}
	h.savePrompts(exts)
	_, ok = h.cachedPrompt(ext.ID, key)
	return ok, nil
}
