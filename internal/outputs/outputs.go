// Package outputs keeps the record of the files a command wrote into a
// folder the user named (the site of `registry site`, the mirror of
// `registry mirror`), so that a later run removes only what an earlier run
// wrote, never a file the user put there (a CNAME, notes, a backup).
//
// The record is DIR/.spirit-outputs.json:
//
//	{"writer": "registry site", "files": ["index.html", "x/a.html", …]}
//
// Rules it keeps:
//
//   - A run claims every file before it writes it (the record then names
//     the old files and the new ones), and when all are written it removes
//     the recorded files it no longer produces, then records only what it
//     produced. A run killed at any point leaves a record that names
//     everything of ours in the folder.
//   - A folder without a record has nothing of ours: nothing in it is
//     removed, whatever its names.
//   - The record lies in a folder anyone may have edited, so it is read as
//     hostile input: at most MaxSize bytes, no unknown field, every name a
//     clean relative slash path inside the folder that this writer could
//     have written (the caller's Allowed), and the writer the same command.
//     Anything else is a *RecordError or a *ForeignError, and nothing is
//     written or removed.
//   - Every read, write and removal goes through an os.Root on the folder,
//     so a symbolic link inside it never leads out.
package outputs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/spiritagents/spirit/internal/within"
)

// FileName is the name of the record in the output folder.
const FileName = ".spirit-outputs.json"

// MaxSize is the largest record read (a mirror of 10,000 extensions with
// a few versions each needs a few MiB).
const MaxSize = 32 << 20

// ErrRecord is matched by every *RecordError.
var ErrRecord = errors.New("output record is invalid")

// RecordError says what is wrong with the record of a folder.
type RecordError struct {
	Dir     string // the output folder
	Problem string
	Err     error // the underlying read or decode error, if any
}

func (e *RecordError) Error() string {
	return fmt.Sprintf("%s: %s", filepath.Join(e.Dir, FileName), e.Problem)
}

// Is matches ErrRecord.
func (e *RecordError) Is(target error) bool { return target == ErrRecord }

// Unwrap returns the underlying error.
func (e *RecordError) Unwrap() error { return e.Err }

// ErrForeign is matched by every *ForeignError.
var ErrForeign = errors.New("output folder holds another command's output")

// ForeignError: the folder's record says another command wrote it.
type ForeignError struct {
	Dir    string
	Writer string // who the record says wrote the folder
	Want   string // who is writing now
}

func (e *ForeignError) Error() string {
	return fmt.Sprintf("%s holds the output of `spirit %s` (its %s says so), not of `spirit %s`", e.Dir, e.Writer, FileName, e.Want)
}

// Is matches ErrForeign.
func (e *ForeignError) Is(target error) bool { return target == ErrForeign }

// Record is the record of one output folder during one run.
type Record struct {
	dir     string
	writer  string
	allowed func(string) bool
	files   map[string]bool // what the record on disk names
}

type file struct {
	Writer string   `json:"writer"`
	Files  []string `json:"files"`
}

// Open reads the record of dir (none: an empty record) for writer, whose
// output names are those allowed accepts. dir must exist.
func Open(dir, writer string, allowed func(name string) bool) (*Record, error) {
	r := &Record{dir: dir, writer: writer, allowed: allowed, files: map[string]bool{}}
	f, err := within.Open(dir, FileName)
	if errors.Is(err, fs.ErrNotExist) {
		return r, nil
	}
	if err != nil {
		return nil, &RecordError{Dir: dir, Problem: "cannot be read: " + err.Error(), Err: err}
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, &RecordError{Dir: dir, Problem: "is not a regular file", Err: err}
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return nil, &RecordError{Dir: dir, Problem: "cannot be read: " + err.Error(), Err: err}
	}
	if len(data) > MaxSize {
		return nil, &RecordError{Dir: dir, Problem: fmt.Sprintf("is larger than %d bytes", MaxSize)}
	}
	rec, err := parse(data)
	if err != nil {
		return nil, &RecordError{Dir: dir, Problem: "is not a record of outputs: " + err.Error(), Err: err}
	}
	if rec.Writer != writer {
		return nil, &ForeignError{Dir: dir, Writer: rec.Writer, Want: writer}
	}
	for _, name := range rec.Files {
		if problem := checkName(name); problem != "" || !allowed(name) {
			if problem == "" {
				problem = "is not a file `spirit " + writer + "` writes"
			}
			return nil, &RecordError{Dir: dir, Problem: fmt.Sprintf("entry %q %s", name, problem)}
		}
		r.files[name] = true
	}
	return r, nil
}

// parse decodes a record: one object, no unknown field, nothing after it.
func parse(data []byte) (*file, error) {
	if !utf8.Valid(data) {
		return nil, errors.New("not UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var rec file
	if err := dec.Decode(&rec); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the object")
	}
	if rec.Writer == "" {
		return nil, errors.New("no writer")
	}
	return &rec, nil
}

// checkName says what is wrong with a recorded name, or "".
func checkName(name string) string {
	switch {
	case !fs.ValidPath(name) || name == ".":
		return "is not a relative slash path inside the folder"
	case strings.ContainsAny(name, "\\\x00"):
		return "holds a backslash or a NUL"
	case path.Clean(name) != name:
		return "is not a clean path"
	case name == FileName:
		return "is the record itself"
	}
	return ""
}

// ErrNotOutput: a run was about to write a file its writer never writes
// (a name that came from outside, such as an old detail's README path).
var ErrNotOutput = errors.New("not a file this command writes")

// Claim records names as outputs of this run before they are written. A
// name the writer could not have written is refused (ErrNotOutput), and
// nothing is recorded.
func (r *Record) Claim(names ...string) error {
	for _, n := range names {
		if checkName(n) != "" || !r.allowed(n) {
			return fmt.Errorf("%w: %q in %s (spirit %s)", ErrNotOutput, n, r.dir, r.writer)
		}
	}
	changed := false
	for _, n := range names {
		if !r.files[n] {
			r.files[n] = true
			changed = true
		}
	}
	if !changed {
		return nil
	}
	return r.save()
}

// Finish removes the recorded files that are not in names (the outputs of
// this run), and folders they leave empty, then records names alone. It
// returns what it removed, sorted.
func (r *Record) Finish(names []string) ([]string, error) {
	keep := map[string]bool{}
	for _, n := range names {
		keep[n] = true
	}
	removed := []string{}
	dirs := map[string]bool{}
	for _, n := range slices.Sorted(maps.Keys(r.files)) {
		if keep[n] {
			continue
		}
		err := within.Remove(r.dir, filepath.FromSlash(n))
		// Gone already, or under a link out of the folder (claimed, then
		// refused by the write): nothing of ours to remove.
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, within.ErrEscape) {
			continue
		}
		if err != nil {
			return removed, fmt.Errorf("removing %s from %s: %w", n, r.dir, err)
		}
		removed = append(removed, n)
		for d := path.Dir(n); d != "."; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	// Deepest first; a folder that is not empty stays.
	for _, d := range slices.Backward(slices.Sorted(maps.Keys(dirs))) {
		_ = within.Remove(r.dir, filepath.FromSlash(d))
	}
	if maps.Equal(keep, r.files) {
		return removed, nil
	}
	r.files = keep
	return removed, r.save()
}

// save writes the record (names sorted, so the same outputs give the same
// bytes).
func (r *Record) save() error {
	data, err := json.MarshalIndent(file{Writer: r.writer, Files: slices.Sorted(maps.Keys(r.files))}, "", "  ")
	if err != nil {
		return err
	}
	if err := within.WriteFile(r.dir, FileName, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", filepath.Join(r.dir, FileName), err)
	}
	return nil
}
