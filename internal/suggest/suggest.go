// Package suggest finds the words a mistyped word may have meant, for the
// "did you mean" of unknown flags and manifest keys.
package suggest

import (
	"slices"
	"strings"
)

// Closest returns the candidates within maxDist edits of word (ignoring
// case; fewer for a short word: one edit per three letters, at least
// one), or that start with it, nearest first and then in order; none when
// word is empty.
func Closest(word string, candidates []string, maxDist int) []string {
	return closest(word, candidates, maxDist, true)
}

// Near is Closest without the candidates that only start with word: for
// names where a shorter one is a name of its own, not an abbreviation.
func Near(word string, candidates []string, maxDist int) []string {
	return closest(word, candidates, maxDist, false)
}

func closest(word string, candidates []string, maxDist int, prefix bool) []string {
	if word == "" {
		return nil
	}
	type hit struct {
		s string
		d int
	}
	var hits []hit
	lw := strings.ToLower(word)
	maxDist = min(maxDist, max(1, len([]rune(word))/3))
	for _, c := range candidates {
		lc := strings.ToLower(c)
		d := distance(lw, lc)
		if d <= maxDist || (prefix && len(lw) >= 3 && strings.HasPrefix(lc, lw)) {
			hits = append(hits, hit{c, d})
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return a.d - b.d })
	out := make([]string, 0, len(hits))
	for _, h := range hits {
		if !slices.Contains(out, h.s) {
			out = append(out, h.s)
		}
	}
	return out
}

// distance is the Levenshtein distance of a and b, in runes.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
