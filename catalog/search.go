package catalog

import (
	"strings"
	"unicode/utf8"
)

func normalizeQuery(q string) string {
	return strings.ToLower(strings.Join(strings.Fields(q), " "))
}

// matches reports whether the lowercased haystack of it contains q, which
// is already lowercased. The haystack is not built as one string: each
// field is searched on its own, then the joins across field boundaries.
func matches(it *Item, q string) bool {
	if !strings.Contains(q, " ") {
		for _, s := range [...]string{it.DisplayName, it.Description, it.ExtensionID, it.PackageName, it.Author} {
			if containsFold(s, q) {
				return true
			}
		}
		for _, k := range it.Keywords {
			if containsFold(k, q) {
				return true
			}
		}
		return false
	}
	parts := make([]string, 0, 5+len(it.Keywords))
	parts = append(parts, it.DisplayName, it.Description, it.ExtensionID, it.PackageName)
	parts = append(parts, it.Keywords...)
	parts = append(parts, it.Author)
	return strings.Contains(strings.ToLower(strings.Join(parts, " ")), q)
}

// containsFold reports whether s contains the lowercase needle, comparing
// s lowercased, without allocating for ASCII text.
func containsFold(s, needle string) bool {
	if len(needle) == 0 {
		return true
	}
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return strings.Contains(strings.ToLower(s), needle)
		}
	}
	n := len(needle)
	for i := 0; i+n <= len(s); i++ {
		j := 0
		for ; j < n; j++ {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != needle[j] {
				break
			}
		}
		if j == n {
			return true
		}
	}
	return false
}
