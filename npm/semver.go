package npm

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// npm's version ranges, as the npm registry's own semver package (node-semver
// 7, loose off, includePrerelease off) reads them: the grammar of
// `semver.validRange`, `satisfies` and `maxSatisfying`, rewritten in Go.
// Masterminds/semver reads another grammar (it takes "1.2.3,1.2.4" as a
// range, which npm refuses); npm.TestRangesAgreeWithNodeSemver holds this
// one equal to node-semver over a corpus.
//
// A range is rewritten step by step into comparator sets, as node-semver
// does it: whitespace runs become one space, "||" splits the sets, then a
// hyphen range, the trims of the space after an operator, "^", "~", x-ranges
// and "*" are turned into plain comparators (">=1.2.3 <2.0.0-0"), each of
// which must then be one operator and one full version. Its regular
// expressions are node-semver's "safe" ones (bounded repetition), with
// JavaScript's \s.

// ErrInvalidRange is matched by the error of a range npm refuses.
var ErrInvalidRange = errors.New("invalid npm version range")

const (
	maxVersionLength = 256
	maxSafeInteger   = 1<<53 - 1
)

// jsSpace is JavaScript's \s.
const jsSpace = `[\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}]`

// Pieces of node-semver's grammar (internal/re.js), with its safe bounds.
const (
	reNum        = `0|[1-9]\d{0,256}`
	reNonNum     = `\d{0,256}[a-zA-Z-][a-zA-Z0-9-]{0,250}`
	reMain       = `(` + reNum + `)\.(` + reNum + `)\.(` + reNum + `)`
	rePreID      = `(?:` + reNonNum + `|` + reNum + `)`
	rePre        = `(?:-(` + rePreID + `(?:\.` + rePreID + `)*))`
	reBuildID    = `[a-zA-Z0-9-]{1,250}`
	reBuild      = `(?:\+(` + reBuildID + `(?:\.` + reBuildID + `)*))`
	reFullPlain  = `v?` + reMain + rePre + `?` + reBuild + `?`
	reGTLT       = `((?:<|>)?=?)`
	reXID        = reNum + `|x|X|\*`
	reXPlain     = `[v=\s]*(` + reXID + `)(?:\.(` + reXID + `)(?:\.(` + reXID + `)(?:` + rePre + `)?` + reBuild + `?)?)?`
	reNumLoose   = `\d{1,256}`
	rePreIDLoose = `(?:` + reNonNum + `|` + reNumLoose + `)`
	reLoosePlain = `[v=\s]*(` + reNumLoose + `)\.(` + reNumLoose + `)\.(` + reNumLoose + `)` +
		`(?:-?(` + rePreIDLoose + `(?:\.` + rePreIDLoose + `)*))?` + reBuild + `?`
)

// grammar is node-semver's regular expressions, compiled.
type grammar struct {
	full, xRange, tilde, caret, comparator, comparatorTrim *regexp.Regexp
	tildeTrim, caretTrim, hyphen, star, gte0               *regexp.Regexp
}

func newGrammar(bounded bool) *grammar {
	c := func(p string) *regexp.Regexp {
		if !bounded {
			p = strings.NewReplacer(`\d{0,256}`, `\d*`, `\d{1,256}`, `\d+`,
				`[a-zA-Z0-9-]{0,250}`, `[a-zA-Z0-9-]*`, `[a-zA-Z0-9-]{1,250}`, `[a-zA-Z0-9-]+`).Replace(p)
		}
		return mustJS(p)
	}
	return &grammar{
		full:           c(`^` + reFullPlain + `$`),
		xRange:         c(`^` + reGTLT + `\s{0,1}` + reXPlain + `$`),
		tilde:          c(`^(?:~>?)` + reXPlain + `$`),
		caret:          c(`^(?:\^)` + reXPlain + `$`),
		comparator:     c(`^` + reGTLT + `\s{0,1}(` + reFullPlain + `)$|^$`),
		comparatorTrim: c(`(\s{0,1})` + reGTLT + `\s{0,1}(` + reLoosePlain + `|` + reXPlain + `)`),
		tildeTrim:      c(`(\s{0,1})(?:~>?)\s{1,1}`),
		caretTrim:      c(`(\s{0,1})(?:\^)\s{1,1}`),
		hyphen:         c(`^\s{0,1}(` + reXPlain + `)\s{1,1}-\s{1,1}(` + reXPlain + `)\s{0,1}$`),
		star:           c(`(<|>)?=?\s{0,1}\*`),
		gte0:           c(`^\s{0,1}>=\s{0,1}0\.0\.0\s{0,1}$`),
	}
}

// node-semver bounds every repetition in an identifier (250 or 256
// characters). Those bounds bind only on a run of more than 250 letters,
// digits and hyphens; compiled, they cost a quarter of a second, so the
// exact expressions are compiled only for input that has such a run. Both
// are compiled on first use, not at startup.
var (
	fastGrammar  = sync.OnceValue(func() *grammar { return newGrammar(false) })
	exactGrammar = sync.OnceValue(func() *grammar { return newGrammar(true) })
	reLongRun    = regexp.MustCompile(`[a-zA-Z0-9-]{251}`)
	reSpaces     = mustJS(`\s+`)
	reNumeric    = regexp.MustCompile(`^[0-9]+$`)
)

// grammarFor returns the expressions to read s with.
func grammarFor(s string) *grammar {
	if reLongRun.MatchString(s) {
		return exactGrammar()
	}
	return fastGrammar()
}

// mustJS compiles p with \s read as JavaScript's: outside a character class
// as jsSpace, inside [v=\s] as its members.
func mustJS(p string) *regexp.Regexp {
	body := strings.TrimSuffix(strings.TrimPrefix(jsSpace, "["), "]")
	p = strings.ReplaceAll(p, `[v=\s]`, `[v=`+body+`]`)
	p = strings.ReplaceAll(p, `\s`, jsSpace)
	return regexp.MustCompile(p)
}

// jsTrim is String.prototype.trim.
func jsTrim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		switch r {
		case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
			return true
		}
		return r >= 0x2000 && r <= 0x200a
	})
}

// replaceAll is String.prototype.replace with a global regular expression
// and a function: f gets the submatches ("" for a group that did not take
// part, as the callbacks here treat undefined).
func replaceAll(re *regexp.Regexp, s string, f func(m []string) string) string {
	return re.ReplaceAllStringFunc(s, func(match string) string {
		return f(re.FindStringSubmatch(match))
	})
}

// replaceFirst is String.prototype.replace with an anchored expression.
func replaceFirst(re *regexp.Regexp, s string, f func(m []string) string) string {
	loc := re.FindStringSubmatchIndex(s)
	if loc == nil {
		return s
	}
	m := make([]string, len(loc)/2)
	for i := range m {
		if loc[2*i] >= 0 {
			m[i] = s[loc[2*i]:loc[2*i+1]]
		}
	}
	return s[:loc[0]] + f(m) + s[loc[1]:]
}

// npmVersion is a version as node-semver's SemVer holds it.
type npmVersion struct {
	major, minor, patch uint64
	pre                 []string
}

// parseNpmVersion is `new SemVer(s)`.
func parseNpmVersion(s string) (*npmVersion, error) {
	if len(s) > maxVersionLength {
		return nil, fmt.Errorf("version is longer than %d characters", maxVersionLength)
	}
	m := grammarFor(s).full.FindStringSubmatch(jsTrim(s))
	if m == nil {
		return nil, fmt.Errorf("Invalid Version: %s", s)
	}
	v := &npmVersion{}
	for i, p := range []*uint64{&v.major, &v.minor, &v.patch} {
		n, err := strconv.ParseUint(m[i+1], 10, 64)
		if err != nil || n > maxSafeInteger {
			return nil, fmt.Errorf("Invalid %s version", [3]string{"major", "minor", "patch"}[i])
		}
		*p = n
	}
	if m[4] != "" {
		v.pre = strings.Split(m[4], ".")
	}
	return v, nil
}

func (v *npmVersion) String() string {
	s := fmt.Sprintf("%d.%d.%d", v.major, v.minor, v.patch)
	if len(v.pre) > 0 {
		s += "-" + strings.Join(v.pre, ".")
	}
	return s
}

// compareIDs is node-semver's compareIdentifiers: numbers by value and
// before words, words by UTF-16 code units (ASCII here).
func compareIDs(a, b string) int {
	an, bn := reNumeric.MatchString(a), reNumeric.MatchString(b)
	switch {
	case an && bn:
		x, _ := strconv.ParseFloat(a, 64)
		y, _ := strconv.ParseFloat(b, 64)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	case an:
		return -1
	case bn:
		return 1
	}
	return strings.Compare(a, b)
}

// compare is node-semver's compare (build metadata ignored).
func (v *npmVersion) compare(o *npmVersion) int {
	for _, d := range [3][2]uint64{{v.major, o.major}, {v.minor, o.minor}, {v.patch, o.patch}} {
		if d[0] != d[1] {
			if d[0] < d[1] {
				return -1
			}
			return 1
		}
	}
	switch {
	case len(v.pre) > 0 && len(o.pre) == 0:
		return -1
	case len(v.pre) == 0 && len(o.pre) > 0:
		return 1
	}
	for i := 0; ; i++ {
		switch {
		case i == len(v.pre) && i == len(o.pre):
			return 0
		case i == len(o.pre):
			return 1
		case i == len(v.pre):
			return -1
		}
		if c := compareIDs(v.pre[i], o.pre[i]); c != 0 {
			return c
		}
	}
}

// comparator is one operator and version; v nil is node-semver's ANY.
type comparator struct {
	op string
	v  *npmVersion
}

func (c comparator) value() string {
	if c.v == nil {
		return ""
	}
	return c.op + c.v.String()
}

func (c comparator) test(v *npmVersion) bool {
	if c.v == nil {
		return true
	}
	x := v.compare(c.v)
	switch c.op {
	case "":
		return x == 0
	case ">":
		return x > 0
	case ">=":
		return x >= 0
	case "<":
		return x < 0
	}
	return x <= 0 // "<="
}

// Range is an npm version range.
type Range struct {
	raw string
	set [][]comparator
}

// ParseRange reads r as npm's semver.validRange does; an error wraps
// ErrInvalidRange.
func ParseRange(r string) (*Range, error) {
	raw := reSpaces.ReplaceAllString(jsTrim(r), " ")
	g := grammarFor(raw)
	var set [][]comparator
	for _, part := range strings.Split(raw, "||") {
		cs, err := g.parseComparators(jsTrim(part))
		if err != nil {
			return nil, fmt.Errorf("%w: %q: %v", ErrInvalidRange, r, err)
		}
		if len(cs) > 0 {
			set = append(set, cs)
		}
	}
	if len(set) == 0 {
		return nil, fmt.Errorf("%w: %q", ErrInvalidRange, r)
	}
	if len(set) > 1 {
		first := set[0]
		kept := set[:0:0]
		for _, cs := range set {
			if cs[0].value() != "<0.0.0-0" {
				kept = append(kept, cs)
			}
		}
		switch {
		case len(kept) == 0:
			kept = [][]comparator{first}
		case len(kept) > 1:
			for _, cs := range kept {
				if len(cs) == 1 && cs[0].v == nil {
					kept = [][]comparator{cs}
					break
				}
			}
		}
		set = kept
	}
	return &Range{raw: raw, set: set}, nil
}

// isX is node-semver's isX: absent, "x", "X" or "*".
func isX(id string) bool { return id == "" || id == "x" || id == "X" || id == "*" }

// inc is JavaScript's +id + 1 for a numeric identifier.
func inc(id string) string {
	n, err := strconv.ParseUint(id, 10, 64)
	if err != nil || n >= maxSafeInteger {
		return "9007199254740992" // past the limit: the version is refused
	}
	return strconv.FormatUint(n+1, 10)
}

func (g *grammar) parseComparators(r string) ([]comparator, error) {
	r = replaceFirst(g.hyphen, r, hyphenReplace)
	r = replaceAll(g.comparatorTrim, r, func(m []string) string {
		return m[1] + m[2] + m[3]
	})
	r = replaceAll(g.tildeTrim, r, func(m []string) string { return m[1] + "~" })
	r = replaceAll(g.caretTrim, r, func(m []string) string { return m[1] + "^" })
	var parsed []string
	for _, comp := range strings.Split(r, " ") {
		parsed = append(parsed, g.parseComparator(comp))
	}
	var all []comparator // every one is checked before the null set wins
	for _, comp := range reSpaces.Split(strings.Join(parsed, " "), -1) {
		comp = replaceFirst(g.gte0, jsTrim(comp), func([]string) string { return "" })
		c, err := g.newComparator(comp)
		if err != nil {
			return nil, err
		}
		all = append(all, c)
	}
	var out []comparator
	seen := map[string]int{}
	for _, c := range all {
		if c.value() == "<0.0.0-0" {
			return []comparator{c}, nil
		}
		if i, ok := seen[c.value()]; ok {
			out[i] = c
			continue
		}
		seen[c.value()] = len(out)
		out = append(out, c)
	}
	if i, ok := seen[""]; ok && len(out) > 1 {
		out = append(out[:i], out[i+1:]...)
	}
	return out, nil
}

func (g *grammar) newComparator(comp string) (comparator, error) {
	comp = strings.Join(reSpaces.Split(jsTrim(comp), -1), " ")
	m := g.comparator.FindStringSubmatch(comp)
	if m == nil {
		return comparator{}, fmt.Errorf("Invalid comparator: %s", comp)
	}
	c := comparator{op: m[1]}
	if c.op == "=" {
		c.op = ""
	}
	if m[2] == "" {
		return comparator{}, nil
	}
	v, err := parseNpmVersion(m[2])
	if err != nil {
		return comparator{}, err
	}
	c.v = v
	return c, nil
}

// eachWord applies f to every whitespace-separated word of s, as
// s.trim().split(/\s+/).map(f).join(" ").
func eachWord(s string, f func(string) string) string {
	words := reSpaces.Split(jsTrim(s), -1)
	for i, w := range words {
		words[i] = f(w)
	}
	return strings.Join(words, " ")
}

func (g *grammar) parseComparator(comp string) string {
	comp = eachWord(comp, func(c string) string { return replaceFirst(g.caret, c, caretReplace) })
	comp = eachWord(comp, func(c string) string { return replaceFirst(g.tilde, c, tildeReplace) })
	words := reSpaces.Split(comp, -1) // replaceXRanges splits without a trim
	for i, w := range words {
		words[i] = replaceFirst(g.xRange, jsTrim(w), xRangeReplace)
	}
	comp = strings.Join(words, " ")
	return g.star.ReplaceAllString(jsTrim(comp), "")
}

func tildeReplace(m []string) string {
	M, mi, p, pr := m[1], m[2], m[3], m[4]
	switch {
	case isX(M):
		return ""
	case isX(mi):
		return ">=" + M + ".0.0 <" + inc(M) + ".0.0-0"
	case isX(p):
		return ">=" + M + "." + mi + ".0 <" + M + "." + inc(mi) + ".0-0"
	case pr != "":
		return ">=" + M + "." + mi + "." + p + "-" + pr + " <" + M + "." + inc(mi) + ".0-0"
	}
	return ">=" + M + "." + mi + "." + p + " <" + M + "." + inc(mi) + ".0-0"
}

func caretReplace(m []string) string {
	M, mi, p, pr := m[1], m[2], m[3], m[4]
	switch {
	case isX(M):
		return ""
	case isX(mi):
		return ">=" + M + ".0.0 <" + inc(M) + ".0.0-0"
	case isX(p):
		if M == "0" {
			return ">=" + M + "." + mi + ".0 <" + M + "." + inc(mi) + ".0-0"
		}
		return ">=" + M + "." + mi + ".0 <" + inc(M) + ".0.0-0"
	}
	from := ">=" + M + "." + mi + "." + p
	if pr != "" {
		from += "-" + pr
	}
	switch {
	case M == "0" && mi == "0":
		return from + " <" + M + "." + mi + "." + inc(p) + "-0"
	case M == "0":
		return from + " <" + M + "." + inc(mi) + ".0-0"
	}
	return from + " <" + inc(M) + ".0.0-0"
}

func xRangeReplace(m []string) string {
	ret, gtlt, M, mi, p := m[0], m[1], m[2], m[3], m[4]
	xM := isX(M)
	xm := xM || isX(mi)
	xp := xm || isX(p)
	if gtlt == "=" && xp {
		gtlt = ""
	}
	pr := ""
	switch {
	case xM:
		if gtlt == ">" || gtlt == "<" {
			return "<0.0.0-0"
		}
		return "*"
	case gtlt != "" && xp:
		if xm {
			mi = "0"
		}
		p = "0"
		switch gtlt {
		case ">":
			gtlt = ">="
			if xm {
				M, mi = inc(M), "0"
			} else {
				mi = inc(mi)
			}
		case "<=":
			gtlt = "<"
			if xm {
				M = inc(M)
			} else {
				mi = inc(mi)
			}
		}
		if gtlt == "<" {
			pr = "-0"
		}
		return gtlt + M + "." + mi + "." + p + pr
	case xm:
		return ">=" + M + ".0.0 <" + inc(M) + ".0.0-0"
	case xp:
		return ">=" + M + "." + mi + ".0 <" + M + "." + inc(mi) + ".0-0"
	}
	return ret
}

// hyphenReplace turns "A - B" into comparators. The groups are those of
// reHyphen: 1 from, 2-4 its parts (5 and 6 its prerelease and build), 7 to,
// 8-10 its parts, 11 its prerelease.
func hyphenReplace(m []string) string {
	from, fM, fm, fp := m[1], m[2], m[3], m[4]
	to, tM, tm, tp, tpr := m[7], m[8], m[9], m[10], m[11]
	switch {
	case isX(fM):
		from = ""
	case isX(fm):
		from = ">=" + fM + ".0.0"
	case isX(fp):
		from = ">=" + fM + "." + fm + ".0"
	default: // with or without a prerelease
		from = ">=" + from
	}
	switch {
	case isX(tM):
		to = ""
	case isX(tm):
		to = "<" + inc(tM) + ".0.0-0"
	case isX(tp):
		to = "<" + tM + "." + inc(tm) + ".0-0"
	case tpr != "":
		to = "<=" + tM + "." + tm + "." + tp + "-" + tpr
	default:
		to = "<=" + to
	}
	return jsTrim(from + " " + to)
}

// Test reports whether version v satisfies the range (a version that does
// not parse satisfies none); a prerelease satisfies only a comparator set
// that names a prerelease of the same major.minor.patch.
func (r *Range) Test(version string) bool {
	v, err := parseNpmVersion(version)
	if err != nil {
		return false
	}
	for _, cs := range r.set {
		if testSet(cs, v) {
			return true
		}
	}
	return false
}

func testSet(cs []comparator, v *npmVersion) bool {
	for _, c := range cs {
		if !c.test(v) {
			return false
		}
	}
	if len(v.pre) == 0 {
		return true
	}
	for _, c := range cs {
		if c.v != nil && len(c.v.pre) > 0 && c.v.major == v.major && c.v.minor == v.minor && c.v.patch == v.patch {
			return true
		}
	}
	return false
}

// MaxSatisfying is npm's semver.maxSatisfying: the highest of versions
// that satisfies r, "" when none does. Versions that do not parse are
// skipped; of equal versions the first is kept.
func (r *Range) MaxSatisfying(versions []string) string {
	var best *npmVersion
	out := ""
	for _, s := range versions {
		if !r.Test(s) {
			continue
		}
		v, _ := parseNpmVersion(s)
		if best == nil || best.compare(v) < 0 {
			best, out = v, s
		}
	}
	return out
}
