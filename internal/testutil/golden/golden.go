// Package golden is the one golden-file helper of spirit's tests.
//
// `go test ./pkg -update` rewrites the golden files of the packages whose
// tests use it, testscript's cmp targets included, and nothing else. A
// folder holding a file named RECORDED keeps output recorded from a
// reference implementation (the yardstick, not this code's output): -update
// never rewrites anything under it, and Check fails as it would without
// -update.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// RecordedMarker is the file whose presence in a folder protects
// everything under it from -update.
const RecordedMarker = "RECORDED"

var update = flag.Bool("update", false, "rewrite golden files (never under a folder holding "+RecordedMarker+")")

// Update reports whether the tests run with -update.
func Update() bool { return *update }

// Recorded reports whether path, or a folder above it, holds a RECORDED
// file. The search stops at the module root (the folder with go.mod).
func Recorded(path string) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	for dir := abs; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, RecordedMarker)); err == nil {
			return true
		}
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil || filepath.Dir(dir) == dir {
			return false
		}
	}
}

// Updatable reports whether -update may rewrite path: it was given, and
// path is not recorded output.
func Updatable(path string) bool { return *update && !Recorded(path) }

// Check compares got with the golden file, or rewrites the file when
// Updatable.
func Check(t testing.TB, file string, got []byte) {
	t.Helper()
	if Updatable(file) {
		Write(t, file, got)
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run go test with -update to accept the new output):\n--- got\n%s\n--- want\n%s", file, got, want)
	}
}

// Write writes a golden file, making its folder; it refuses a recorded
// one. Tests that regenerate a whole tree call it under Updatable.
func Write(t testing.TB, file string, data []byte) {
	t.Helper()
	if Recorded(file) {
		t.Fatalf("%s is recorded output (a %s file guards it); it is never rewritten", file, RecordedMarker)
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
