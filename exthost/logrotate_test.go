package exthost

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOpenLogRotatesAtStart(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "x.log")
	if err := os.WriteFile(log, make([]byte, 10), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := openLog(log, 100)
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	if _, err := os.Stat(log + ".1"); err == nil {
		t.Fatal("a small log was rotated")
	}
	if err := os.WriteFile(log+".1", []byte("older"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(log, make([]byte, 101), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err = openLog(log, 100)
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	if fi, err := os.Stat(log); err != nil || fi.Size() != 0 {
		t.Fatalf("the new log: %v, %v", fi, err)
	}
	if fi, err := os.Stat(log + ".1"); err != nil || fi.Size() != 101 {
		t.Fatalf("rotated log: %v, %v", fi, err)
	}
}

func TestLogRotatesWhileWriting(t *testing.T) {
	log := filepath.Join(t.TempDir(), "x.log")
	l, err := openLog(log, 1000)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	line := strings.Repeat("x", 99) + "\n"
	for range 1000 {
		if _, err := l.Write([]byte(line)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.Write(make([]byte, 5000)); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{log, log + ".1"} {
		if fi, err := os.Stat(p); err != nil || fi.Size() > 1000 {
			t.Fatalf("%s: %v, %v", p, fi, err)
		}
	}
}

// FuzzMaskWriter writes data in pieces of arbitrary size through a
// maskWriter that knows secret: the secret never reaches the log.
func FuzzMaskWriter(f *testing.F) {
	f.Add([]byte("line with hunter22 in it\n"), "hunter22", uint16(7))
	f.Add(append(make([]byte, 65530), "hunter22\n"...), "hunter22", uint16(4096))
	f.Fuzz(func(t *testing.T, data []byte, secret string, step uint16) {
		if len(secret) < 4 || strings.ContainsAny(secret, "*\n") || strings.Contains(jsonEscape(secret), "*") {
			return
		}
		m := &masker{}
		m.add(secret)
		var out strings.Builder
		w := &maskWriter{m: m, w: &out}
		n := max(int(step), 1)
		for b := data; len(b) > 0; {
			k := min(n, len(b))
			if _, err := w.Write(b[:k]); err != nil {
				t.Fatal(err)
			}
			b = b[k:]
		}
		w.flush()
		if strings.Contains(out.String(), secret) {
			t.Fatalf("the secret %q reached the log", secret)
		}
	})
}
