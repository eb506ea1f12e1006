package manifest

import "unicode"

// isJSSpace reports whether r is removed by JavaScript's String.prototype.trim:
// the WhiteSpace and LineTerminator code points of ECMAScript, which are
// Unicode White_Space without U+0085, plus U+FEFF.
func isJSSpace(r rune) bool { return r == '\uFEFF' || (r != '\u0085' && unicode.IsSpace(r)) }
