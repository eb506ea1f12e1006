package install

import (
	"bytes"
	"errors"
	"os"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/spiritagents/spirit/internal/jsontok"
)

// listRegistry is readRegistry for a list: extensions.json in the shape
// spirit and the apps write it is read from its tokens (registryTokens),
// where encoding/json took a few milliseconds at 300 installs; any other
// file is read again by readRegistry.
func listRegistry(file string) ([]Entry, error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if entries, ok := registryTokens(data); ok {
		return entries, nil
	}
	return readRegistry(file)
}

// listRecords is readRecords for a list, by recordsTokens where it can.
func listRecords(file string) map[string]*Record {
	data, err := os.ReadFile(file)
	if err != nil {
		return map[string]*Record{}
	}
	if recs, ok := recordsTokens(data); ok {
		return recs
	}
	return readRecords(file)
}

// tokens reads one JSON document for registryTokens and recordsTokens,
// which give up (ok false) on anything they do not read as encoding/json
// would: those go to readRegistry and readRecords.
type tokens struct {
	s    *jsontok.Scanner
	data []byte
	// text is data as a string when data is UTF-8: the text of a string
	// without escapes is then a slice of it, which makes nothing.
	text string
}

func newTokens(data []byte) tokens {
	r := tokens{s: jsontok.NewScanner(data, recordsDepth), data: data}
	if utf8.Valid(data) {
		r.text = string(data)
	}
	return r
}

// textOf returns the text of string or name t, as jsontok.Scanner.Text.
func (r tokens) textOf(t jsontok.Token) string {
	if r.text != "" && bytes.IndexByte(r.data[t.Start+1:t.End-1], '\\') < 0 {
		return r.text[t.Start+1 : t.End-1]
	}
	return r.s.Text(t)
}

// recordsDepth is deeper than records go.
const recordsDepth = 16

func (r tokens) next() (jsontok.Token, bool) {
	t, err := r.s.Next()
	return t, err == nil
}

// object reads the members of the object that t opens (ok false when t
// opens none): member gets each name, which may come once, and reads
// the value.
// array reads the array that t begins, handing each element's first token
// to element, which reads the rest of it; it fails when t is no array or
// when element says so.
func (r tokens) array(t jsontok.Token, element func(jsontok.Token) bool) bool {
	if t.Kind != jsontok.BeginArray {
		return false
	}
	for {
		t, ok := r.next()
		switch {
		case !ok:
			return false
		case t.Kind == jsontok.EndArray:
			return true
		case !element(t):
			return false
		}
	}
}

func (r tokens) object(t jsontok.Token, member func(name string) bool) bool {
	if t.Kind != jsontok.BeginObject {
		return false
	}
	// The names seen: a record's few in a list, the ids of installed.json
	// (hundreds) in a map.
	var names [24]string
	seen := names[:0]
	var many map[string]bool
	for {
		t, ok := r.next()
		if !ok {
			return false
		}
		if t.Kind == jsontok.EndObject {
			return true
		}
		name := r.textOf(t)
		if slices.Contains(seen, name) || many[name] || !member(name) {
			return false
		}
		switch {
		case many != nil:
			many[name] = true
		case len(seen) < len(names):
			seen = append(seen, name)
		default:
			many = map[string]bool{name: true}
		}
	}
}

// end reads the end of the data after the document.
func (r tokens) end() bool {
	t, ok := r.next()
	return ok && t.Kind == jsontok.End
}

// registryTokens reads extensions.json as readRegistry does, when it is an
// object with only "entries", an array of objects (or null), whose
// members id, directoryName, installedAtUnixMs, archiveFileName and
// installSource come at most once.
func registryTokens(data []byte) ([]Entry, bool) {
	r := newTokens(data)
	var read []Entry
	t, ok := r.next()
	ok = ok && r.object(t, func(name string) bool {
		if name != "entries" {
			return false
		}
		t, ok := r.next()
		return ok && r.array(t, func(t jsontok.Token) bool {
			if t.Kind == jsontok.Null {
				return true // no id: dropped
			}
			e, keep, ok := r.entry(t)
			if keep {
				read = append(read, e)
			}
			return ok
		})
	})
	if !ok || !r.end() {
		return nil, false
	}
	return lastByID(read), true
}

// entry reads one entry of extensions.json as readRegistry does: keep is
// false when id or directoryName is missing or not a string (null reads
// as ""), installedAtUnixMs counts when it is a number, the other two when
// they are strings.
func (r tokens) entry(t jsontok.Token) (e Entry, keep, ok bool) {
	hasID, hasDir := false, false
	ok = r.object(t, func(name string) bool {
		t, ok := r.next()
		if !ok {
			return false
		}
		switch name {
		case "id":
			hasID = t.Kind == jsontok.String || t.Kind == jsontok.Null
			e.ID = r.stringOr(t, "")
		case "directoryName":
			hasDir = t.Kind == jsontok.String || t.Kind == jsontok.Null
			e.DirectoryName = r.stringOr(t, "")
		case "installedAtUnixMs":
			if t.Kind == jsontok.Number {
				if f, err := strconv.ParseFloat(string(r.s.Bytes(t)), 64); err == nil {
					e.InstalledAtUnixMs = int64(f)
				}
			}
		case "archiveFileName":
			e.ArchiveFileName = r.stringOr(t, "")
		case "installSource":
			e.InstallSource = r.stringOr(t, "")
		}
		_, err := r.s.Skip(t)
		return err == nil
	})
	return e, hasID && hasDir, ok
}

// stringOr returns the text of t when it is a string, else or.
func (r tokens) stringOr(t jsontok.Token, or string) string {
	if t.Kind == jsontok.String {
		return r.textOf(t)
	}
	return or
}

// recordsTokens reads installed.json as readRecords does, when it is an
// object with "schemaVersion" (an integer) and "extensions", each record
// an object (or null) of Record's own field names, once each, with values
// of their types or null; npmSignature and provenance only null.
func recordsTokens(data []byte) (map[string]*Record, bool) {
	r := newTokens(data)
	out := map[string]*Record{}
	t, ok := r.next()
	ok = ok && r.object(t, func(name string) bool {
		t, ok := r.next()
		switch {
		case !ok:
			return false
		case name == "schemaVersion":
			return t.Kind == jsontok.Null || t.Kind == jsontok.Number && isInt(r.s.Bytes(t), strconv.IntSize)
		case name != "extensions":
			return false
		case t.Kind == jsontok.Null:
			return true
		}
		return r.object(t, func(id string) bool {
			t, ok := r.next()
			if !ok {
				return false
			}
			if t.Kind == jsontok.Null {
				return true // a nil record: dropped
			}
			rec := &Record{}
			if !r.object(t, func(name string) bool { return r.recordField(rec, name) }) {
				return false
			}
			rec.Source, rec.ResolvedURL = recordedURL(rec.Source), recordedURL(rec.ResolvedURL)
			out[id] = rec
			return true
		})
	})
	if !ok || !r.end() {
		return nil, false
	}
	return out, true
}

// recordField reads member name of a record into rec.
func (r tokens) recordField(rec *Record, name string) bool {
	t, ok := r.next()
	if !ok {
		return false
	}
	if s := recordString(rec, name); s != nil {
		switch t.Kind {
		case jsontok.String:
			*s = r.textOf(t)
		case jsontok.Null:
		default:
			return false
		}
		return true
	}
	switch name {
	case "installedAtUnixMs", "firstInstalledAtUnixMs":
		to := &rec.InstalledAtUnixMs
		if name == "firstInstalledAtUnixMs" {
			to = &rec.FirstInstalledAtUnixMs
		}
		if t.Kind == jsontok.Null {
			return true
		}
		if t.Kind != jsontok.Number || !isInt(r.s.Bytes(t), 64) {
			return false
		}
		*to, _ = strconv.ParseInt(string(r.s.Bytes(t)), 10, 64)
		return true
	case "grantedCapabilities":
		return r.stringArray(t, &rec.GrantedCapabilities)
	case "npmSignature", "provenance":
		return t.Kind == jsontok.Null
	}
	return false
}

// recordString returns the string field of rec whose JSON name is name.
func recordString(rec *Record, name string) *string {
	switch name {
	case "id":
		return &rec.ID
	case "version":
		return &rec.Version
	case "directoryName":
		return &rec.DirectoryName
	case "installSource":
		return &rec.InstallSource
	case "source":
		return &rec.Source
	case "sourceKind":
		return &rec.SourceKind
	case "npmRegistry":
		return &rec.NPMRegistry
	case "archiveFileName":
		return &rec.ArchiveFileName
	case "resolvedUrl":
		return &rec.ResolvedURL
	case "integrity":
		return &rec.Integrity
	case "manifestDigest":
		return &rec.ManifestDigest
	case "marketplaceIndex":
		return &rec.MarketplaceIndex
	case "marketplaceId":
		return &rec.MarketplaceID
	case "channel":
		return &rec.Channel
	case "reviewStatus":
		return &rec.ReviewStatus
	}
	return nil
}

// stringArray reads an array of strings (encoding/json makes [] an empty
// slice, not nil) or null.
func (r tokens) stringArray(t jsontok.Token, to *[]string) bool {
	if t.Kind == jsontok.Null {
		return true
	}
	list := []string{}
	ok := r.array(t, func(t jsontok.Token) bool {
		if t.Kind != jsontok.String {
			return false
		}
		list = append(list, r.textOf(t))
		return true
	})
	if ok {
		*to = list
	}
	return ok
}

// isInt reports whether a JSON number literal is an integer that fits in
// bits, as encoding/json decodes one into an int.
func isInt(literal []byte, bits int) bool {
	_, err := strconv.ParseInt(string(literal), 10, bits)
	return err == nil
}
