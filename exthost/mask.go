package exthost

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
)

// masker knows the secret values an extension was given and replaces them
// with "***" wherever its output leaves the host: results, errors, logs.
type masker struct {
	mu     sync.RWMutex
	values []string
}

// add remembers a secret value. Values shorter than 4 bytes are not masked:
// they would turn ordinary text into stars.
func (m *masker) add(v string) {
	if len(v) < 4 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	// The JSON-escaped form too: a secret with " or \ inside a JSON result
	// (JSON.stringify of an object) appears only in that form.
	for _, form := range []string{v, jsonEscape(v)} {
		if !slices.Contains(m.values, form) {
			m.values = append(m.values, form)
		}
	}
	// Longest first, so a secret that contains another is masked whole.
	slices.SortFunc(m.values, func(a, b string) int { return len(b) - len(a) })
}

// jsonEscape is s as JSON.stringify writes it inside a string, without the
// quotes.
func jsonEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// longest is the length of the longest value masked.
func (m *masker) longest() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if len(m.values) == 0 {
		return 0
	}
	return len(m.values[0])
}

// safeCut returns a cut point at or before c such that no masked value
// found in b spans it. An occurrence that starts before c within
// len(value)-1 bytes of it spans c; the cut moves to its start, until no
// value spans the cut.
func (m *masker) safeCut(b []byte, c int) int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	for moved := true; moved && c > 0; {
		moved = false
		for _, v := range m.values {
			lo := max(0, c-len(v)+1)
			hi := min(len(b), c+len(v)-1)
			if lo >= hi {
				continue
			}
			if k := bytes.Index(b[lo:hi], []byte(v)); k >= 0 && lo+k < c {
				c, moved = lo+k, true
			}
		}
	}
	return c
}

func (m *masker) string(s string) string {
	if m == nil {
		return s
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	for _, v := range m.values {
		s = strings.ReplaceAll(s, v, "***")
	}
	return s
}

// maxLogLine is the longest part of a line the log writer buffers.
const maxLogLine = 64 << 10

// maskWriter writes whole lines through a masker, so a secret split across
// two writes is still masked. A line longer than 64 KiB is written in parts
// that are cut where no secret can straddle the cut: the tail that could
// hold the start of one waits for more bytes. A maskWriter serves one
// stream: another stream's write in the middle of a line would cut it.
type maskWriter struct {
	mu  sync.Mutex
	m   *masker
	w   io.Writer
	buf []byte
}

func (w *maskWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		end := bytes.IndexByte(w.buf, '\n') + 1
		if end == 0 {
			keep := w.m.longest() - 1
			if len(w.buf) < maxLogLine+keep {
				return len(p), nil
			}
			end = w.m.safeCut(w.buf, len(w.buf)-max(keep, 0))
			if end == 0 {
				end = len(w.buf) // a secret longer than the whole buffer
			}
		}
		if _, err := io.WriteString(w.w, w.m.string(string(w.buf[:end]))); err != nil {
			return len(p), err
		}
		w.buf = w.buf[end:]
	}
}

// flush writes what is left without a newline.
func (w *maskWriter) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) > 0 {
		_, _ = io.WriteString(w.w, w.m.string(string(w.buf)))
		w.buf = nil
	}
}
