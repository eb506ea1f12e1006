package manifest

import (
	"strings"
	"unicode"
)

// isJSSpace reports whether r is removed by JavaScript's String.prototype.trim:
// the WhiteSpace and LineTerminator code points of ECMAScript, which are
// Unicode White_Space without U+0085, plus U+FEFF.
func isJSSpace(r rune) bool { return r == '\uFEFF' || (r != '\u0085' && unicode.IsSpace(r)) }

// TrimJS trims s as JavaScript's String.prototype.trim does. Every rule of
// the reference that trims or tests for blank text uses it, so that U+FEFF
// counts as space and U+0085 does not, as in the apps.
func TrimJS(s string) string { return strings.TrimFunc(s, isJSSpace) }
