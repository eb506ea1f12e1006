package manifest

import (
	"bytes"
	"slices"
	"unicode/utf8"

	"github.com/spiritagents/spirit/internal/jsontok"
)

// briefManifest builds, straight from the tokens of package.json, the
// manifest that validate builds from trusted bytes without the tools'
// schemas (Options.Trusted and NoToolSchemas: what `extension list` reads
// of each install), without making the document's map[string]any first.
//
// It reads only documents in the shape extensions usually have, where the
// two ways are easy to see to agree: npm's fields and the fields of the
// manifest without settingsSchema, secretSlots, desktop and cli. Anything
// else gives ok false and the caller validates the usual way: bytes that
// are too many, start with a byte order mark, are not UTF-8 or not JSON; a
// root that is not an object; a name repeated in an object this reads; a
// key that unknownKeys might warn about (any key this does not know);
// no spiritExtension object, no supportedHosts array; a list item that is
// not a string, a tool that is not an object. TestBriefManifestIsValidate
// and FuzzBriefManifest hold both ways to the same report.
//
// Without the schema pass (Trusted) validate reads each string field as
// "the value if it is a string, else empty", and so does this.
func briefManifest(data []byte) (*Manifest, bool) {
	if len(data) > MaxSize || bytes.HasPrefix(data, utf8BOM) || !utf8.Valid(data) {
		return nil, false
	}
	r := &briefReader{s: jsontok.NewScanner(data, MaxDepth), data: data, text: string(data)}
	m := &Manifest{SchemaVersion: 1}
	if !r.open(jsontok.BeginObject) || !r.root(m) {
		return nil, false
	}
	if t, ok := r.next(); !ok || t.Kind != jsontok.End {
		return nil, false
	}
	return m, true
}

// briefReader reads the tokens of one document for briefManifest.
type briefReader struct {
	s    *jsontok.Scanner
	data []byte
	// text is data as a string: a string without escapes is a slice of it,
	// so reading one makes nothing.
	text string
}

func (r *briefReader) next() (jsontok.Token, bool) {
	t, err := r.s.Next()
	return t, err == nil
}

// open reads the next token, which must be of kind (an opening bracket).
func (r *briefReader) open(kind jsontok.Kind) bool {
	t, ok := r.next()
	return ok && t.Kind == kind
}

// textOf returns the text of string or name t, as jsontok.Scanner.Text
// does (data is UTF-8, so only escapes change it).
func (r *briefReader) textOf(t jsontok.Token) string {
	if bytes.IndexByte(r.data[t.Start+1:t.End-1], '\\') < 0 {
		return r.text[t.Start+1 : t.End-1]
	}
	return r.s.Text(t)
}

// members reads the members of the object just opened: member is called
// with each name and reads the value. Each name may come once; seen keeps
// the names of this object (they are few).
func (r *briefReader) members(member func(name string) bool) bool {
	var names [16]string
	seen := names[:0]
	for {
		t, ok := r.next()
		if !ok {
			return false
		}
		if t.Kind == jsontok.EndObject {
			return true
		}
		name := r.textOf(t)
		if slices.Contains(seen, name) {
			return false
		}
		seen = append(seen, name)
		if !member(name) {
			return false
		}
	}
}

// skip reads a value and drops it.
func (r *briefReader) skip() bool {
	t, ok := r.next()
	if !ok {
		return false
	}
	_, err := r.s.Skip(t)
	return err == nil
}

// stringField reads a value as validate reads a string field without the
// schema pass: a string, trimmed, else "".
func (r *briefReader) stringField(to *string) bool {
	t, ok := r.next()
	if !ok {
		return false
	}
	if t.Kind == jsontok.String {
		*to = trim(r.textOf(t))
		return true
	}
	_, err := r.s.Skip(t)
	return err == nil
}

// stringList reads an array of strings, trimmed and without repeats, into
// list (which stays nil when there are none); done says it was an array.
func (r *briefReader) stringList(list *[]string) (done, ok bool) {
	t, ok := r.next()
	if !ok {
		return false, false
	}
	if t.Kind != jsontok.BeginArray {
		_, err := r.s.Skip(t)
		return false, err == nil
	}
	for {
		t, ok := r.next()
		switch {
		case !ok:
			return true, false
		case t.Kind == jsontok.EndArray:
			return true, true
		case t.Kind != jsontok.String:
			return true, false
		}
		if s := trim(r.textOf(t)); !slices.Contains(*list, s) {
			*list = append(*list, s)
		}
	}
}

// root reads the members of package.json.
func (r *briefReader) root(m *Manifest) bool {
	hasSE := false
	ok := r.members(func(name string) bool {
		switch name {
		case "name":
			return r.stringField(&m.ID)
		case "version":
			return r.stringField(&m.Version)
		case "description":
			return r.stringField(&m.Description)
		case "homepage":
			return r.stringField(&m.Homepage)
		case "main":
			return r.stringField(&m.Main)
		case "type":
			// Kept as written, not trimmed.
			t, ok := r.next()
			if ok && t.Kind == jsontok.String {
				m.Type = r.textOf(t)
				return true
			}
			return false
		case "author":
			return r.author(m)
		case "spiritExtension":
			hasSE = true
			return r.open(jsontok.BeginObject) && r.spiritExtension(m)
		}
		// npm's other fields: known, and not walked by unknownKeys.
		return slices.Contains(npmFields, name) && r.skip()
	})
	return ok && hasSE
}

// author reads a string, or an object with at most a name.
func (r *briefReader) author(m *Manifest) bool {
	t, ok := r.next()
	switch {
	case !ok:
		return false
	case t.Kind == jsontok.String:
		m.Author = trim(r.textOf(t))
		return true
	case t.Kind != jsontok.BeginObject:
		_, err := r.s.Skip(t)
		return err == nil
	}
	return r.members(func(name string) bool {
		return name == "name" && r.stringField(&m.Author)
	})
}

// spiritExtension reads the members of the spiritExtension object.
func (r *briefReader) spiritExtension(m *Manifest) bool {
	hosts := false
	ok := r.members(func(name string) bool {
		switch name {
		case "schemaVersion":
			// Checked only by the schema pass.
			return r.skip()
		case "displayName":
			return r.stringField(&m.Name)
		case "icon":
			return r.stringField(&m.Icon)
		case "activationEvents":
			_, ok := r.stringList(&m.ActivationEvents)
			return ok
		case "requestedCapabilities":
			_, ok := r.stringList(&m.RequestedCapabilities)
			return ok
		case "supportedHosts":
			done, ok := r.stringList(&m.SupportedHosts)
			hosts = done
			return ok
		case "contributes":
			return r.contributes(m)
		}
		return false
	})
	return ok && hosts
}

// contributes reads an object with at most tools; any other value is
// ignored, as validate ignores it.
func (r *briefReader) contributes(m *Manifest) bool {
	t, ok := r.next()
	if !ok {
		return false
	}
	if t.Kind != jsontok.BeginObject {
		_, err := r.s.Skip(t)
		return err == nil
	}
	var tools []Tool
	ok = r.members(func(name string) bool {
		return name == "tools" && r.tools(&tools)
	})
	if ok && len(tools) > 0 {
		m.Contributes = &Contributes{Tools: tools}
	}
	return ok
}

// tools reads the tools array (any other value is ignored); each tool must
// be an object.
func (r *briefReader) tools(tools *[]Tool) bool {
	t, ok := r.next()
	if !ok {
		return false
	}
	if t.Kind != jsontok.BeginArray {
		_, err := r.s.Skip(t)
		return err == nil
	}
	for {
		t, ok := r.next()
		switch {
		case !ok:
			return false
		case t.Kind == jsontok.EndArray:
			return true
		case t.Kind != jsontok.BeginObject:
			return false
		}
		var tool Tool
		if !r.members(func(name string) bool { return r.toolMember(&tool, name) }) {
			return false
		}
		*tools = append(*tools, tool)
	}
}

// toolMember reads member name of a tool; the schemas are left out.
func (r *briefReader) toolMember(tool *Tool, name string) bool {
	switch name {
	case "name":
		return r.stringField(&tool.Name)
	case "description":
		return r.stringField(&tool.Description)
	case "inputSchema", "outputSchema":
		return r.skip()
	case "approvalMode":
		return r.stringField(&tool.ApprovalMode)
	case "executionMode":
		return r.stringField(&tool.ExecutionMode)
	}
	return false
}
