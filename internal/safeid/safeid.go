// Package safeid is the rule for an extension id that came from outside (a
// marketplace catalog, a registry entry) and may reach a shell's command
// line through completion: ASCII letters, digits and @ / . _ + - only. No
// shell reads any of them as anything but part of a word, so a candidate
// (or the common prefix of two) inserted unquoted cannot run code.
package safeid

// Chars describes the allowed characters, for messages.
const Chars = "letters, digits and @ / . _ + -"

// Valid reports whether s is a non-empty id made only of the allowed
// characters.
func Valid(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '@' || c == '/' || c == '.' || c == '_' || c == '+' || c == '-':
		default:
			return false
		}
	}
	return true
}
