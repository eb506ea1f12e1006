package runtime

import (
	"bytes"
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
	if !slices.Contains(m.values, v) {
		m.values = append(m.values, v)
		// Longest first, so a secret that contains another is masked whole.
		slices.SortFunc(m.values, func(a, b string) int { return len(b) - len(a) })
	}
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

// maskWriter writes whole lines through a masker, so a secret split across
// two writes is still masked. A line longer than 64 KiB is written in parts.
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
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			if len(w.buf) < 64<<10 {
				return len(p), nil
			}
			i = len(w.buf) - 1
		}
		if _, err := io.WriteString(w.w, w.m.string(string(w.buf[:i+1]))); err != nil {
			return len(p), err
		}
		w.buf = w.buf[i+1:]
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
