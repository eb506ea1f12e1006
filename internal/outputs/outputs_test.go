package outputs

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spiritagents/spirit/internal/testutil/tempdir"
)

// allowed accepts what a writer of "out/…" files writes.
func allowed(name string) bool { return strings.HasPrefix(name, "out/") }

func write(t *testing.T, dir, name, data string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A run removes what an earlier run recorded and no longer produces, and
// folders left empty; the user's files, recorded nowhere, stay.
func TestFinishRemovesOnlyRecorded(t *testing.T) {
	dir := tempdir.New(t)
	write(t, dir, "notes.txt", "mine")
	write(t, dir, "out/NOTES.txt", "mine")
	rec, err := Open(dir, "w", allowed)
	if err != nil {
		t.Fatal(err)
	}
	first := []string{"out/a", "out/sub/b"}
	if err := rec.Claim(first...); err != nil {
		t.Fatal(err)
	}
	for _, n := range first {
		write(t, dir, n, "ours")
	}
	if removed, err := rec.Finish(first); err != nil || len(removed) != 0 {
		t.Fatalf("first run removed %v, %v", removed, err)
	}

	rec, err = Open(dir, "w", allowed)
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Claim("out/a"); err != nil {
		t.Fatal(err)
	}
	removed, err := rec.Finish([]string{"out/a"})
	if err != nil || !slices.Equal(removed, []string{"out/sub/b"}) {
		t.Fatalf("second run removed %v, %v", removed, err)
	}
	for _, n := range []string{"notes.txt", "out/NOTES.txt", "out/a"} {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(n))); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "sub")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the emptied folder out/sub stays: %v", err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, FileName))
	if want := "{\n  \"writer\": \"w\",\n  \"files\": [\n    \"out/a\"\n  ]\n}\n"; string(data) != want {
		t.Errorf("record:\n%s\nwant:\n%s", data, want)
	}
}

// A hostile or foreign record is refused, and names the entry.
func TestOpenRefusesHostileRecords(t *testing.T) {
	for _, tt := range []struct {
		name, record, want string
		foreign            bool
	}{
		{"dot dot", `{"writer":"w","files":["out/../notes.txt"]}`, `entry "out/../notes.txt" is not a relative slash path inside the folder`, false},
		{"absolute", `{"writer":"w","files":["/etc/passwd"]}`, `entry "/etc/passwd" is not a relative slash path`, false},
		{"backslash", `{"writer":"w","files":["out/..\\..\\x"]}`, `holds a backslash or a NUL`, false},
		{"not ours", `{"writer":"w","files":["notes.txt"]}`, `entry "notes.txt" is not a file ` + "`spirit w`" + ` writes`, false},
		{"itself", `{"writer":"w","files":[".spirit-outputs.json"]}`, `is the record itself`, false},
		{"unknown field", `{"writer":"w","files":[],"rm":["x"]}`, `json: unknown field "rm"`, false},
		{"two values", `{"writer":"w","files":[]} {}`, `data after the object`, false},
		{"no writer", `{"files":[]}`, `no writer`, false},
		{"not utf-8", "{\"writer\":\"w\xff\",\"files\":[]}", `not UTF-8`, false},
		{"not json", `notes`, `is not a record of outputs`, false},
		{"another writer", `{"writer":"other","files":[]}`, "holds the output of `spirit other`", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := tempdir.New(t)
			write(t, dir, FileName, tt.record)
			_, err := Open(dir, "w", allowed)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			if errors.Is(err, ErrForeign) != tt.foreign || errors.Is(err, ErrRecord) == tt.foreign {
				t.Errorf("err = %#v: ErrForeign %v, ErrRecord %v", err, errors.Is(err, ErrForeign), errors.Is(err, ErrRecord))
			}
		})
	}
}

// A record that is a link out of the folder, or too large, is refused.
func TestOpenRefusesLinkAndSize(t *testing.T) {
	dir, outside := tempdir.New(t), tempdir.New(t)
	write(t, outside, "r.json", `{"writer":"w","files":[]}`)
	if err := os.Symlink(filepath.Join(outside, "r.json"), filepath.Join(dir, FileName)); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if _, err := Open(dir, "w", allowed); !errors.Is(err, ErrRecord) {
		t.Errorf("a record linked out of the folder: %v", err)
	}
	dir = tempdir.New(t)
	write(t, dir, FileName, `{"writer":"w","files":[`+strings.Repeat(`"out/a",`, MaxSize/8)+`"out/a"]}`)
	if _, err := Open(dir, "w", allowed); !errors.Is(err, ErrRecord) || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("a record over MaxSize: %v", err)
	}
}

// A name a writer never writes is not claimed.
func TestClaimRefusesForeignNames(t *testing.T) {
	dir := tempdir.New(t)
	rec, err := Open(dir, "w", allowed)
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Claim("out/a", "notes.txt"); !errors.Is(err, ErrNotOutput) {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, FileName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused claim wrote the record: %v", err)
	}
}

// FuzzOpen: any record is read without a panic, and one that is accepted
// names only allowed, clean names inside the folder.
func FuzzOpen(f *testing.F) {
	f.Add(`{"writer":"w","files":["out/a","out/b/c"]}`)
	f.Add(`{"writer":"w","files":["out/../x"]}`)
	f.Add(`{"writer":"other","files":[]}`)
	f.Add(`{"writer":"w","files":null}`)
	f.Fuzz(func(t *testing.T, record string) {
		dir := tempdir.New(t)
		write(t, dir, FileName, record)
		rec, err := Open(dir, "w", allowed)
		if err != nil {
			return
		}
		for n := range rec.files {
			if checkName(n) != "" || !allowed(n) || !filepath.IsLocal(filepath.FromSlash(n)) {
				t.Fatalf("accepted %q", n)
			}
		}
	})
}
