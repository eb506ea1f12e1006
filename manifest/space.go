package manifest

import "unicode"

// isJSSpace reports whether r is removed by JavaScript's String.prototype.trim:
// Unicode White_Space, the line terminators, and U+FEFF.
func isJSSpace(r rune) bool { return r == '\uFEFF' || unicode.IsSpace(r) }
