package fetch

import (
	"io"
	"testing"
)

type countingProgress struct{ n int64 }

func (c *countingProgress) Start(string, int64) {}
func (c *countingProgress) Add(n int64)         { c.n += n }
func (c *countingProgress) Done(error)          {}

// ProgressWriter counts what is written, and discards for a nil Progress.
func TestProgressWriter(t *testing.T) {
	var c countingProgress
	w := ProgressWriter(&c)
	w.Write([]byte("abc"))
	w.Write(nil)
	w.Write([]byte("de"))
	if c.n != 5 {
		t.Fatalf("counted %d, want 5", c.n)
	}
	if ProgressWriter(nil) != io.Discard {
		t.Fatal("a nil Progress must discard")
	}
}
