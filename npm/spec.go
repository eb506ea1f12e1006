package npm

import (
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"
)

// Spec is a parsed package spec.
type Spec struct {
	Name  string // "name" or "@scope/name"
	Range string // a semver range, a dist-tag, or "" for the latest dist-tag
	Raw   string // the spec as given
}

// String returns NAME@RANGE, or NAME when the range is empty.
func (s Spec) String() string {
	if s.Range == "" {
		return s.Name
	}
	return s.Name + "@" + s.Range
}

const maxNameLen = 214

var (
	namePart = `[a-z0-9~-][a-z0-9._~-]*`
	nameRe   = regexp.MustCompile(`^(?:@` + namePart + `/)?` + namePart + `$`)
	tagRe    = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
)

// ValidName reports whether name is a valid npm package name for a new
// package: lowercase, URL-safe, optionally scoped, at most 214 bytes.
func ValidName(name string) bool {
	return len(name) <= maxNameLen && nameRe.MatchString(name)
}

// maxOldNameLen bounds ValidOldName: npm's rules for existing packages
// have no length limit, a hostile name still needs one.
const maxOldNameLen = 1024

// ValidOldName reports whether npm can serve a package of this name, as
// validate-npm-package-name's validForOldPackages says: the rules for new
// packages without the lowercase, length and core-module ones, so legacy
// names such as JSONStream pass. What npm itself cannot serve stays
// refused: an empty name, a leading "." or "_" (spaces are escaped),
// node_modules and favicon.ico, and any character encodeURIComponent
// would escape (outside @scope/).
func ValidOldName(name string) bool {
	if name == "" || len(name) > maxOldNameLen ||
		strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
		return false
	}
	if l := strings.ToLower(name); l == "node_modules" || l == "favicon.ico" {
		return false
	}
	pkg := name
	if scope, rest, ok := strings.Cut(name, "/"); ok {
		if !strings.HasPrefix(scope, "@") || !uriComponentSafe(scope[1:]) || scope == "@" {
			return false
		}
		pkg = rest
		if strings.HasPrefix(pkg, ".") {
			return false
		}
	}
	return pkg != "" && uriComponentSafe(pkg)
}

// uriComponentSafe reports whether encodeURIComponent leaves s as it is.
func uriComponentSafe(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("-_.!~*'()", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// ParseSpec parses "npm:NAME[@RANGE|@TAG]", "NAME@RANGE" and
// "@scope/name[@RANGE|@TAG]". A bare unscoped NAME is accepted only after
// "npm:".
func ParseSpec(s string) (Spec, error) {
	raw := s
	bad := func(format string, a ...any) (Spec, error) {
		return Spec{}, fmt.Errorf("%w %q: %s", ErrInvalidSpec, raw, fmt.Sprintf(format, a...))
	}
	if len(s) > 1024 {
		return bad("too long")
	}
	rest, hasPrefix := strings.CutPrefix(s, "npm:")
	if rest == "" {
		return bad("empty package name")
	}
	var name, rng string
	var hasAt bool
	if strings.HasPrefix(rest, "@") {
		slash := strings.IndexByte(rest, '/')
		if slash < 0 {
			return bad("a scoped name is @scope/name")
		}
		at := strings.IndexByte(rest[slash:], '@')
		if at < 0 {
			name = rest
		} else {
			name, rng, hasAt = rest[:slash+at], rest[slash+at+1:], true
		}
	} else {
		name, rng, hasAt = strings.Cut(rest, "@")
		if !hasAt && !hasPrefix {
			return bad("an unscoped package needs npm:NAME or NAME@RANGE")
		}
	}
	if !ValidName(name) {
		return bad("%q is not a valid npm package name (lowercase letters, digits, - . _ ~, optionally @scope/)", name)
	}
	rng = strings.TrimSpace(rng)
	if hasAt && rng == "" {
		return bad("empty version range after @")
	}
	if rng != "" && !validRange(rng) {
		return bad("%q is neither a semver range nor a dist-tag", rng)
	}
	return Spec{Name: name, Range: rng, Raw: raw}, nil
}

// validRange reports whether r is a semver range or a tag name.
func validRange(r string) bool {
	if isTag(r) {
		return true
	}
	_, err := parseRange(r)
	return err == nil
}

// isTag reports whether r is used as a dist-tag: a tag-shaped word that is
// not a version or range ("latest", "beta", "next"; not "1", "1.x", "x").
func isTag(r string) bool {
	if !tagRe.MatchString(r) {
		return false
	}
	_, err := parseRange(r)
	return err != nil
}

// parseRange parses an npm range as npm's semver package does (ParseRange);
// "" means any version, as in npm.
func parseRange(r string) (*Range, error) {
	return ParseRange(r)
}

// IsSpec reports whether s names an npm package rather than a local path,
// an archive or a URL: "npm:…" always; "@scope/name[@…]" and "name@range"
// when they parse and no file or directory of that name exists.
func IsSpec(s string) bool {
	if strings.HasPrefix(s, "npm:") {
		return true
	}
	if s == "" || strings.HasPrefix(s, ".") || strings.HasPrefix(s, "/") ||
		strings.HasPrefix(s, "~") || strings.ContainsAny(s, `\:`) {
		return false
	}
	if u, err := url.Parse(s); err == nil && u.Scheme != "" {
		return false
	}
	lower := strings.ToLower(s)
	for _, ext := range []string{".zip", ".tgz", ".tar.gz", ".tar"} {
		if strings.HasSuffix(lower, ext) {
			return false
		}
	}
	if _, err := os.Lstat(s); err == nil {
		return false
	}
	_, err := ParseSpec(s)
	return err == nil
}
