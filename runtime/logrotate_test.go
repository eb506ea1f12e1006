package runtime

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRotateLog(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "x.log")
	if err := os.WriteFile(log, make([]byte, 10), 0o600); err != nil {
		t.Fatal(err)
	}
	rotateLog(log)
	if _, err := os.Stat(log + ".1"); err == nil {
		t.Fatal("a small log was rotated")
	}
	if err := os.WriteFile(log+".1", []byte("older"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(log, make([]byte, MaxLogSize+1), 0o600); err != nil {
		t.Fatal(err)
	}
	rotateLog(log)
	if _, err := os.Stat(log); !os.IsNotExist(err) {
		t.Fatalf("the large log is still in place: %v", err)
	}
	if fi, err := os.Stat(log + ".1"); err != nil || fi.Size() != MaxLogSize+1 {
		t.Fatalf("rotated log: %v, %v", fi, err)
	}
}
