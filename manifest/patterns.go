package manifest

import (
	"regexp"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The schema's patterns are of three shapes: "not blank", a trimmed
// alternation of literal words (an enum that tolerates surrounding white
// space, as the reference trims before comparing), and a trimmed npm name
// or key. The regular expressions say it for editors; schemaRegexp matches
// these shapes with plain Go, which is several times faster, and gives any
// other pattern to the regexp package. TestPatternsAgreeWithRegexp holds
// the two to the same answers.

// wsClass is the character class of JavaScript's trim, as the schema writes it.
const wsClass = "[\t\n\u000b\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]"

const (
	trimPrefix = "^" + wsClass + "*(?:"
	trimSuffix = ")" + wsClass + "*$"
	keyCore    = "[a-z0-9]+(?:[._-][a-z0-9]+)*"
	nameCore   = "(?:@[a-z0-9][a-z0-9._-]*/)?[a-z0-9][a-z0-9._-]*"
)

// schemaRegexp is the schema compiler's regexp engine.
func schemaRegexp(pattern string) (jsonschema.Regexp, error) {
	if pattern == nonBlankPattern {
		return matcher{pattern, func(s string) bool { return strings.IndexFunc(s, notJSSpace) >= 0 }}, nil
	}
	if core, ok := strings.CutPrefix(pattern, trimPrefix); ok {
		if core, ok := strings.CutSuffix(core, trimSuffix); ok {
			if m := trimmedMatcher(core); m != nil {
				return matcher{pattern, func(s string) bool { return m(trim(s)) }}, nil
			}
		}
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, err
	}
	return re, nil
}

type matcher struct {
	pattern string
	match   func(string) bool
}

func (m matcher) MatchString(s string) bool { return m.match(s) }
func (m matcher) String() string            { return m.pattern }

func notJSSpace(r rune) bool { return !isJSSpace(r) }

// trimmedMatcher returns a matcher of the whole (trimmed) string for the
// cores the schema uses, or nil.
func trimmedMatcher(core string) func(string) bool {
	switch core {
	case keyCore:
		return isKey
	case nameCore:
		return isPackageName
	}
	if strings.ContainsAny(core, `\[](){}*+?^$.`) {
		return nil
	}
	words := map[string]bool{}
	for _, w := range strings.Split(core, "|") {
		words[w] = true
	}
	return func(s string) bool { return words[s] }
}

func isLowerAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

// isKey: [a-z0-9]+(?:[._-][a-z0-9]+)* — runs of lower-case letters and
// digits joined by single separators.
func isKey(s string) bool {
	if s == "" {
		return false
	}
	prevSep := true
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case isLowerAlnum(c):
			prevSep = false
		case c == '.' || c == '_' || c == '-':
			if prevSep {
				return false
			}
			prevSep = true
		default:
			return false
		}
	}
	return !prevSep
}

// isPackageName: (?:@[a-z0-9][a-z0-9._-]*/)?[a-z0-9][a-z0-9._-]*
func isPackageName(s string) bool {
	if strings.HasPrefix(s, "@") {
		scope, rest, ok := strings.Cut(s[1:], "/")
		if !ok || !isNamePart(scope) {
			return false
		}
		s = rest
	}
	return isNamePart(s)
}

func isNamePart(s string) bool {
	if s == "" || !isLowerAlnum(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isLowerAlnum(c) && c != '.' && c != '_' && c != '-' {
			return false
		}
	}
	return true
}
