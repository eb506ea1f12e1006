// Package collate compares strings the way the Spirit Agent apps do with
// JavaScript's localeCompare, which in Node is ICU collation with CLDR
// data:
//
//   - English compares like localeCompare(a, b, "en") (the CLDR root
//     order: case and accents are secondary and tertiary differences,
//     punctuation before digits before letters).
//   - Chinese compares like localeCompare(a, b, "zh-CN"): Han characters
//     by pinyin, and, because the CLDR zh collation reorders the Han script
//     ([reorder Hani]), Han after spaces, punctuation, symbols and digits
//     but before Latin and every other script.
//
// golang.org/x/text/collate has CLDR weights but does not apply script
// reordering (it leaves Han after every other script), and its pinyin data
// is older than Node's (about 1 in 40 neighbouring common characters in
// another order). Chinese therefore compares primary weights itself: Han
// characters by their rank in han-order.txt (the BMP Han characters in the
// order Node's ICU gives, written by gen-han-order.js) just after the
// digits, everything else by the primary weights of x/text; x/text decides
// the rest (accents, case). Known differences: Han characters of the
// supplementary planes follow the whole table in x/text's order, where
// ICU interleaves them by radical and stroke with the rare BMP characters
// at the table's end; ICU's multi-character pinyin contractions (重庆
// sorts as chóng) are not applied. The name table in testdata, sorted by
// node, is the reference.
//
// A Collator is not safe for concurrent use.
package collate

import (
	_ "embed"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	xcollate "golang.org/x/text/collate"
	"golang.org/x/text/language"
	"golang.org/x/text/unicode/norm"
)

// Collator compares strings in one locale's order.
type Collator struct {
	c   *xcollate.Collator
	buf xcollate.Buffer
	// firstLetter is the primary weight of "a", where the letters start;
	// lower primaries are spaces, punctuation, symbols and digits.
	firstLetter uint64
	reorderHan  bool
}

// English returns a collator for localeCompare(a, b, "en").
func English() *Collator {
	return &Collator{c: xcollate.New(language.English)}
}

// Chinese returns a collator for localeCompare(a, b, "zh-CN").
func Chinese() *Collator {
	c := &Collator{c: xcollate.New(language.SimplifiedChinese)}
	if p := c.primaries(nil, "a", false); len(p) > 0 {
		c.firstLetter = p[0]
	}
	c.reorderHan = true
	return c
}

// Compare returns -1, 0 or 1 as a sorts before, with or after b.
func (c *Collator) Compare(a, b string) int {
	if c.reorderHan {
		if r := comparePrimaries(c.reordered(a), c.reordered(b)); r != 0 {
			return r
		}
	}
	return c.c.CompareString(a, b)
}

// Key is what Compare reads of one string, worked out once: sorting n
// strings compares each about 2·log2(n) times, and most of a comparison
// is finding the primary weights of both strings.
type Key struct {
	s         string
	primaries []uint64 // reordered primary weights, when reorderHan
}

// Key returns the key of s for CompareKeys.
func (c *Collator) Key(s string) Key {
	k := Key{s: s}
	if c.reorderHan {
		k.primaries = c.reordered(s)
	}
	return k
}

// CompareKeys is Compare of the strings of keys a and b (made by c).
func (c *Collator) CompareKeys(a, b Key) int {
	if c.reorderHan {
		if r := comparePrimaries(a.primaries, b.primaries); r != 0 {
			return r
		}
	}
	return c.c.CompareString(a.s, b.s)
}

// Group ranks of reordered primary weights.
const (
	groupSpecial = iota // spaces, punctuation, symbols, currency, digits
	groupHan
	groupOther
)

// reordered returns the primary weights of s with their script group in
// the top bits, so that comparing them gives the reordered order. Runs of
// Han and of other characters are weighed separately so that a Han
// weight is known as such.
func (c *Collator) reordered(s string) []uint64 {
	s = norm.NFC.String(s)
	var out []uint64
	for len(s) > 0 {
		han := isHan(s)
		n := 0
		for n < len(s) && isHan(s[n:]) == han {
			_, size := utf8.DecodeRuneInString(s[n:])
			n += size
		}
		if han {
			out = c.hanPrimaries(out, s[:n])
		} else {
			out = c.primaries(out, s[:n], false)
		}
		s = s[n:]
	}
	return out
}

// isHan reports whether s starts with a character of the reordered Han
// group: one of the table, or a Han character outside the BMP.
func isHan(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	if r < firstHanRank {
		return false
	}
	hanOnce.Do(loadHanRanks)
	if _, ok := hanRanks[r]; ok {
		return true
	}
	return r > 0xFFFF && unicode.Is(unicode.Han, r)
}

// firstHanRank is the lowest character of han-order.txt (U+2E80, the first
// CJK radical): below it isHan needs no table, so sorting names without Han
// characters never loads it (27,938 map entries, ~2 ms).
const firstHanRank = 0x2E80

//go:embed han-order.txt
var hanOrder string

var (
	hanOnce  sync.Once
	hanRanks map[rune]uint64
)

// loadHanRanks reads han-order.txt: after a comment line, one line per
// primary weight with the characters that have it.
func loadHanRanks() {
	lines := strings.Split(hanOrder, "\n")
	hanRanks = make(map[rune]uint64, len(lines))
	for i, line := range lines[1:] {
		for _, r := range line {
			hanRanks[r] = uint64(i) + 1
		}
	}
}

// hanPrimaries appends the reordered primary weights of a run of Han
// characters.
func (c *Collator) hanPrimaries(out []uint64, s string) []uint64 {
	for _, r := range s {
		if rank, ok := hanRanks[r]; ok {
			out = append(out, groupHan<<32|rank)
			continue
		}
		for _, p := range c.primaries(nil, string(r), false) {
			out = append(out, groupHan<<32|1<<24|p&(1<<24-1))
		}
	}
	return out
}

// primaries appends the primary weights of s, read from its x/text sort
// key, tagged with their group when reorderHan is set.
func (c *Collator) primaries(out []uint64, s string, han bool) []uint64 {
	c.buf.Reset()
	key := c.c.KeyFromString(&c.buf, s)
	// x/text writes each primary as 2 bytes (below 0x8000) or 3 bytes
	// with the top bit set, then 0 0 before the secondary weights.
	for i := 0; i+1 < len(key); {
		var p uint64
		switch {
		case key[i]&0x80 != 0 && i+2 < len(key):
			p = uint64(key[i]&0x7f)<<16 | uint64(key[i+1])<<8 | uint64(key[i+2])
			i += 3
		case key[i] == 0 && key[i+1] == 0:
			return out
		default:
			p = uint64(key[i])<<8 | uint64(key[i+1])
			i += 2
		}
		if c.reorderHan {
			switch {
			case han:
				p |= groupHan << 32
			case p >= c.firstLetter:
				p |= groupOther << 32
			}
		}
		out = append(out, p)
	}
	return out
}

func comparePrimaries(a, b []uint64) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	switch {
	case len(a) < len(b):
		return -1
	case len(a) > len(b):
		return 1
	}
	return 0
}
