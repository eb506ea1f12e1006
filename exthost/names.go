package exthost

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/manifest"
)

// maxInvocationName is the reference's EXTENSION_TOOL_INVOCATION_NAME_MAX_LENGTH.
const maxInvocationName = 64

// sanitize lowercases ASCII letters and digits and turns every run of other
// code points into one "_", trimmed at both ends; "" becomes "tool".
func sanitize(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case r >= 'A' && r <= 'Z':
			b.WriteRune(r + ('a' - 'A'))
		default:
			if !strings.HasSuffix(b.String(), "_") {
				b.WriteByte('_')
			}
		}
	}
	out := strings.Trim(b.String(), "_")
	if out == "" {
		return "tool"
	}
	return out
}

// firstRunes returns the first n code points of s.
func firstRunes(s string, n int) string {
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}

// BaseInvocationName is the model-facing name of a tool before collision
// suffixes, to the byte as the reference computes it (spec §5.5):
// extension__{E}__{T}__{sha1(E + "\x00" + T)[:8]}, with E the sanitised id
// cut to 16 code points and T the sanitised tool name cut to 24.
func BaseInvocationName(extensionID, toolName string) string {
	e := firstRunes(sanitize(extensionID), 16)
	t := firstRunes(sanitize(toolName), 24)
	sum := sha1.Sum([]byte(e + "\x00" + t))
	return "extension__" + e + "__" + t + "__" + hex.EncodeToString(sum[:])[:8]
}

// uniqueName returns base, or base cut to fit with the first free suffix
// "__1", "__2", …, and records the name in used.
func uniqueName(base string, used map[string]bool) string {
	name := base
	for i := 1; used[name]; i++ {
		s := "__" + strconv.Itoa(i)
		cut := base
		if len(cut) > maxInvocationName-len(s) {
			cut = cut[:maxInvocationName-len(s)]
		}
		name = cut + s
	}
	used[name] = true
	return name
}

// namedByApps says whether the apps give m's tools invocation names: both
// tool capabilities, main or not (the apps list a tool without main and
// fail its calls; spirit does not expose it, but it still takes a name).
func namedByApps(m *manifest.Manifest) bool {
	return m != nil && m.HasCapability(CapToolDefinitions) && m.HasCapability(CapToolExecution)
}

// assignNames gives the tools of exts their invocation names as the apps
// do (spec §5.5): extensions in list order (display name, then id), tools
// in manifest order, each name the base or the first free "__N" suffix.
// So among colliding extensions the first in list order has the bare
// names, in spirit's MCP server as in the apps. names[i][j] is the name of
// tool j of exts[i]; extensions the apps do not name have none.
func assignNames(exts []install.Installed) map[int][]string {
	order := make([]int, 0, len(exts))
	for i := range exts {
		if namedByApps(exts[i].Manifest) {
			order = append(order, i)
		}
	}
	byList := install.ListOrder()
	slices.SortStableFunc(order, func(a, b int) int { return byList(&exts[a], &exts[b]) })
	names := map[int][]string{}
	used := map[string]bool{}
	for _, i := range order {
		for _, t := range exts[i].Manifest.Tools() {
			names[i] = append(names[i], uniqueName(BaseInvocationName(exts[i].ID, t.Name), used))
		}
	}
	return names
}

// SharedName is an invocation name that tools of two or more extensions
// would have before their suffixes.
type SharedName struct {
	// Base is the shared name; Owner (an "ID/TOOL") gets it, the others
	// the suffixed names in Others, in the apps' list order.
	Base   string
	Owner  string
	Others []string
}

// NameMove is an installed tool whose invocation name an install changes.
type NameMove struct {
	Tool     string // ID/TOOL
	From, To string
}

// NameCollisionError says an install would make its tools share
// invocation names with an installed extension's: what each shared name
// goes to and which installed names would move.
type NameCollisionError struct {
	ID string
	// Installed are the ids of the installed extensions it would share
	// names with.
	Installed []string
	Shared    []SharedName
	Moves     []NameMove
}

func (e *NameCollisionError) Error() string {
	names := make([]string, len(e.Shared))
	for i, s := range e.Shared {
		names[i] = s.Base
	}
	return fmt.Sprintf("the tools of %s would share invocation names with the installed %s: %s",
		e.ID, strings.Join(e.Installed, ", "), strings.Join(names, ", "))
}

// Assignments says, one line each, who gets each shared name and which
// installed names move.
func (e *NameCollisionError) Assignments() []string {
	var out []string
	for _, s := range e.Shared {
		out = append(out, fmt.Sprintf("%s goes to %s", s.Base, s.Owner))
		out = append(out, s.Others...)
	}
	for _, m := range e.Moves {
		out = append(out, fmt.Sprintf("%s moves from %s to %s", m.Tool, m.From, m.To))
	}
	return out
}

// CheckNames reports the invocation names that installing incoming would
// newly share with installed extensions, as the apps name tools (same
// sanitised 16-character id prefix and same 24-character tool name): a
// shared prefix alone is no collision. A name incoming already shared
// before (a replace or update of it) is not new. It returns nil when no
// name would be newly shared.
func CheckNames(installed []install.Installed, incoming *manifest.Manifest) *NameCollisionError {
	if !namedByApps(incoming) {
		return nil
	}
	after := slices.Clone(installed)
	var oldBases map[string]bool
	if i := slices.IndexFunc(after, func(in install.Installed) bool { return in.ID == incoming.ID }); i >= 0 {
		oldBases = map[string]bool{}
		if namedByApps(after[i].Manifest) {
			for _, t := range after[i].Manifest.Tools() {
				oldBases[BaseInvocationName(incoming.ID, t.Name)] = true
			}
		}
		after[i] = install.Installed{ID: incoming.ID, Manifest: incoming}
	} else {
		after = append(after, install.Installed{ID: incoming.ID, Manifest: incoming})
	}
	// holders of each base name in list order, as "ID/TOOL" with its name
	type holder struct{ id, tool, name string }
	byBase := map[string][]holder{}
	var bases []string
	newNames := assignNames(after)
	order := make([]int, 0, len(after))
	for i := range after {
		order = append(order, i)
	}
	byList := install.ListOrder()
	slices.SortStableFunc(order, func(a, b int) int { return byList(&after[a], &after[b]) })
	for _, i := range order {
		for j, name := range newNames[i] {
			t := after[i].Manifest.Tools()[j]
			base := BaseInvocationName(after[i].ID, t.Name)
			if _, ok := byBase[base]; !ok {
				bases = append(bases, base)
			}
			byBase[base] = append(byBase[base], holder{after[i].ID, after[i].ID + "/" + t.Name, name})
		}
	}
	e := &NameCollisionError{ID: incoming.ID}
	for _, base := range bases {
		hs := byBase[base]
		mine := slices.ContainsFunc(hs, func(h holder) bool { return h.id == incoming.ID })
		if len(hs) < 2 || !mine || oldBases[base] {
			continue
		}
		s := SharedName{Base: base, Owner: hs[0].tool}
		for _, h := range hs[1:] {
			s.Others = append(s.Others, h.tool+" gets "+h.name)
		}
		for _, h := range hs {
			if h.id != incoming.ID && !slices.Contains(e.Installed, h.id) {
				e.Installed = append(e.Installed, h.id)
			}
		}
		e.Shared = append(e.Shared, s)
	}
	if len(e.Shared) == 0 {
		return nil
	}
	oldNames := assignNames(installed)
	for _, i := range order {
		if after[i].ID == incoming.ID {
			continue
		}
		j := slices.IndexFunc(installed, func(in install.Installed) bool { return in.ID == after[i].ID })
		for k, name := range newNames[i] {
			if j >= 0 && k < len(oldNames[j]) && oldNames[j][k] != name {
				e.Moves = append(e.Moves, NameMove{Tool: after[i].ID + "/" + after[i].Manifest.Tools()[k].Name, From: oldNames[j][k], To: name})
			}
		}
	}
	return e
}
