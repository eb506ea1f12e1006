package registry

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spiritagents/spirit/internal/safeid"
	"github.com/spiritagents/spirit/internal/within"
	"github.com/spiritagents/spirit/problem"
)

// Severity of a Problem (the type shared with manifest and catalog).
type Severity = problem.Severity

// The severities. Warnings do not fail a build unless it is strict.
const (
	SeverityError   = problem.SeverityError
	SeverityWarning = problem.SeverityWarning
)

// Problem is one thing wrong with the registry: the file it is about (when
// known) and the message, in the reference's words where it has them.
type Problem = problem.Problem

// ProblemsError carries every problem that stopped an operation.
type ProblemsError struct {
	// What says which step found them ("entry check", "npm metadata", ...).
	What     string
	Problems []Problem
}

func (e *ProblemsError) Error() string {
	n := 0
	for _, p := range e.Problems {
		if p.Severity == SeverityError {
			n++
		}
	}
	if n == 1 {
		return e.What + " found 1 problem"
	}
	return fmt.Sprintf("%s found %d problems", e.What, n)
}

// ErrNoEntries is returned when registry/extensions holds no entry.json.
var ErrNoEntries = errors.New("No registry entry files found under registry/extensions/**/entry.json.")

// Entry is one parsed entry.json.
type Entry struct {
	// File is the absolute path of the entry.json.
	File string
	// Data is the file's bytes.
	Data []byte
	// Doc is the parsed document (an object when the entry passed its checks).
	Doc *Value
}

// ID returns the extensionId as jq's tostring gives it.
func (e *Entry) ID() string { v, _ := e.Doc.Get("extensionId"); return v.ToString() }

// PackageName returns the packageName as jq's tostring gives it.
func (e *Entry) PackageName() string { v, _ := e.Doc.Get("packageName"); return v.ToString() }

func (e *Entry) field(k string) *Value { v, _ := e.Doc.Get(k); return v }

func (e *Entry) versions() []*Value {
	v := e.field("versions")
	if v == nil || v.Kind != KindArray {
		return nil
	}
	return v.Elems
}

// extensionsDir is where entries live below the repository root.
func extensionsDir(root string) string { return filepath.Join(root, "registry", "extensions") }

// findFiles returns every regular file named name at any depth under
// registry/extensions of the repository root, sorted by full path in byte
// order (find | LC_ALL=C sort). Like every file access of this package it
// goes through an os.Root on root (package within): a symbolic link that
// leads out of the repository is an error naming it, never followed.
func findFiles(root, name string) ([]string, error) {
	return within.FindFiles(root, filepath.Join("registry", "extensions"), name)
}

// LoadEntries reads and checks every entry.json under root. It returns the
// entries that parsed (sorted by extensionId when there are no errors) and
// every problem: the rules of the reference for each file (§1.2), the
// uniqueness of ids and packages (§1.3), and the entry schema (warnings).
func LoadEntries(root string, schemas *Schemas) ([]*Entry, []Problem, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, nil, err
	}
	files, err := findFiles(abs, "entry.json")
	if err != nil {
		return nil, nil, err
	}
	if len(files) == 0 {
		return nil, nil, ErrNoEntries
	}
	var entries []*Entry
	var problems []Problem
	for _, f := range files {
		data, err := within.ReadFile(abs, f)
		if err != nil {
			return nil, nil, err
		}
		e, ps := CheckEntry(f, data)
		problems = append(problems, ps...)
		if e != nil && len(ps) == 0 && schemas != nil {
			problems = append(problems, schemas.checkValue(schemaEntry, f, e.Doc)...)
		}
		if e != nil && len(ps) == 0 {
			entries = append(entries, e)
		}
	}
	problems = append(problems, uniqueness(entries)...)
	if hasErrors(problems) {
		return entries, problems, nil
	}
	slices.SortStableFunc(entries, func(a, b *Entry) int { return Compare(a.field("extensionId"), b.field("extensionId")) })
	return entries, problems, nil
}

func hasErrors(ps []Problem) bool {
	return slices.ContainsFunc(ps, func(p Problem) bool { return p.Severity == SeverityError })
}

var (
	statuses       = []string{"listed", "hidden", "deprecated", "blocked"}
	reviewStatuses = []string{"unverified", "verified", "revoked"}
	channels       = []string{"stable", "preview", "experimental"}
)

func inEnum(v *Value, allowed []string) bool {
	return v != nil && v.Kind == KindString && slices.Contains(allowed, v.Str)
}

// CheckEntry parses one entry.json and applies the reference's per-file
// rules (spec §1.2), returning every problem in the reference's order and
// words. The entry is nil when the file is not a JSON object.
func CheckEntry(file string, data []byte) (*Entry, []Problem) {
	var ps []Problem
	add := func(format string, a ...any) {
		ps = append(ps, Problem{File: file, Message: fmt.Sprintf(format, a...), Severity: SeverityError})
	}
	doc, err := ParseValue(data)
	if err != nil {
		add("%v", err)
		add("Failed to parse %s.", file)
		return nil, ps
	}
	if doc.Kind != KindObject {
		add("jq: error: Cannot index %s with \"schemaVersion\"", doc.kindName())
		add("Failed to parse %s.", file)
		return nil, ps
	}
	e := &Entry{File: file, Data: data, Doc: doc}
	if !Equal(e.field("schemaVersion"), Number("1")) {
		add("Unsupported schemaVersion in %s.", file)
	}
	for _, k := range []string{"extensionId", "packageName", "status", "featured", "defaultVersion", "versions"} {
		if !doc.Has(k) {
			add("Missing required key '%s' in %s.", k, file)
		}
	}
	for _, k := range []string{"extensionId", "packageName", "defaultVersion", "defaultReviewStatus"} {
		if e.field(k).blank() {
			add("%s must be a non-empty string in %s.", k, file)
		}
	}
	if s, ok := doc.Get("status"); ok && !inEnum(s, statuses) {
		add("Invalid status '%s' in %s. Allowed values: listed, hidden, deprecated, blocked.", s.ToString(), file)
	}
	if f, ok := doc.Get("featured"); ok && (f == nil || (f.Kind != KindTrue && f.Kind != KindFalse)) {
		add("featured must be a boolean in %s.", file)
	}
	if r, ok := doc.Get("defaultReviewStatus"); ok && !r.blank() && !inEnum(r, reviewStatuses) {
		add("Invalid defaultReviewStatus '%s' in %s. Allowed values: unverified, verified, revoked.", r.ToString(), file)
	}
	vs := e.field("versions")
	if vs == nil || vs.Kind != KindArray || len(vs.Elems) == 0 {
		add("versions must contain at least one item in %s.", file)
	} else {
		for _, item := range vs.Elems {
			if item.Kind != KindObject {
				add("Missing required version key 'version' in %s.", file)
				continue
			}
			for _, k := range []string{"version", "channel", "reviewStatus"} {
				if !item.Has(k) {
					add("Missing required version key '%s' in %s.", k, file)
				}
			}
			if v, _ := item.Get("version"); v.blank() {
				add("version must be a non-empty string in %s.", file)
			}
			if c, ok := item.Get("channel"); ok && !inEnum(c, channels) {
				add("Invalid channel '%s' in %s. Allowed values: stable, preview, experimental.", c.ToString(), file)
			}
			if r, ok := item.Get("reviewStatus"); ok && !inEnum(r, reviewStatuses) {
				add("Invalid reviewStatus '%s' in %s. Allowed values: unverified, verified, revoked.", r.ToString(), file)
			}
			if cl, _ := item.Get("changelog"); !cl.IsNull() {
				if cl.Kind != KindObject {
					add("changelog must be an object in %s.", file)
				} else {
					for _, k := range []string{"summary", "body"} {
						if !cl.Has(k) {
							add("Missing required changelog key '%s' in %s.", k, file)
						}
					}
					for _, k := range []string{"summary", "body"} {
						if v, _ := cl.Get(k); v.blank() {
							add("changelog.%s must be a non-empty string in %s.", k, file)
						}
					}
				}
			}
		}
		versions := make([]*Value, len(vs.Elems))
		for i, item := range vs.Elems {
			versions[i], _ = item.Get("version")
		}
		sorted := slices.Clone(versions)
		slices.SortStableFunc(sorted, Compare)
		for i := 1; i < len(sorted); i++ {
			if Equal(sorted[i], sorted[i-1]) && (i == 1 || !Equal(sorted[i-1], sorted[i-2])) {
				add("Duplicate version '%s' found in %s.", sorted[i].ToString(), file)
			}
		}
	}
	dv := e.field("defaultVersion")
	found := false
	for _, item := range e.versions() {
		if v, _ := item.Get("version"); Equal(v, dv) {
			found = true
			break
		}
	}
	if !found {
		add("defaultVersion '%s' was not found in the versions list for %s.", dv.ToString(), file)
	}
	if len(ps) == 0 {
		// Not reference rules: the id names a folder that the build writes
		// to, and reaches shells through completion.
		if id := e.ID(); !safeSegment(id) {
			add("extensionId '%s' cannot be used as a folder name in %s.", id, file)
		} else if !safeid.Valid(id) {
			add("extensionId '%s' may hold only %s in %s.", id, safeid.Chars, file)
		}
	}
	return e, ps
}

// safeSegment reports whether s can name one folder under
// registry/extensions without escaping it.
func safeSegment(s string) bool {
	return s != "" && s != "." && s != ".." && !strings.ContainsAny(s, "/\\\x00")
}

// uniqueness reports duplicated ids, then duplicated packages (spec §1.3).
func uniqueness(entries []*Entry) []Problem {
	var ps []Problem
	for _, key := range []string{"extensionId", "packageName"} {
		vals := make([]*Value, 0, len(entries))
		files := map[string][]string{}
		for _, e := range entries {
			v := e.field(key)
			vals = append(vals, v)
			files[v.compact()] = append(files[v.compact()], e.File)
		}
		slices.SortStableFunc(vals, Compare)
		for i := 1; i < len(vals); i++ {
			if Equal(vals[i], vals[i-1]) && (i == 1 || !Equal(vals[i-1], vals[i-2])) {
				file := ""
				if fs := files[vals[i].compact()]; len(fs) > 0 {
					file = fs[len(fs)-1]
				}
				ps = append(ps, Problem{File: file, Message: fmt.Sprintf("Duplicate %s '%s' found.", key, vals[i].ToString()), Severity: SeverityError})
			}
		}
	}
	return ps
}
