package runtime

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/spiritagents/spirit/install"
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

// invocationPrefix is the sanitised id as it appears in every invocation
// name of the extension's tools ("extension__{E}__").
func invocationPrefix(id string) string {
	return firstRunes(sanitize(id), 16)
}

// NameCollision reports an installed extension other than newID whose
// tools would get the same invocation-name prefix as newID's
// (extension__{E}__…), so that tools of the same name would collide. The
// install command refuses such an install unless the user allows it:
// among colliding extensions the one installed first keeps the bare names
// and the newcomer gets the "__1" suffixes, but a user or model that knew
// the old names could still be misled.
//
// A newID that is installed already (a replace or update) collides with
// nothing new and is not reported.
func NameCollision(installed []install.Installed, newID string) (other string, ok bool) {
	prefix := invocationPrefix(newID)
	for _, in := range installed {
		if in.ID == newID {
			return "", false
		}
	}
	for _, in := range installed {
		if in.ID != newID && invocationPrefix(in.ID) == prefix {
			return in.ID, true
		}
	}
	return "", false
}

// NameCollisionError says an install was refused because its tools would
// share invocation names with an installed extension's.
type NameCollisionError struct {
	ID, Installed string
}

func (e *NameCollisionError) Error() string {
	return fmt.Sprintf("the tools of %s would share invocation names (extension__%s__…) with the installed %s",
		e.ID, invocationPrefix(e.ID), e.Installed)
}
