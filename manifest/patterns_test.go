package manifest

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// schemaPatterns returns every "pattern" of the embedded schema.
func schemaPatterns(t testing.TB) []string {
	var out []string
	var walk func(any)
	walk = func(x any) {
		switch v := x.(type) {
		case map[string]any:
			for k, c := range v {
				if s, ok := c.(string); ok && k == "pattern" {
					out = append(out, s)
				}
				walk(c)
			}
		case []any:
			for _, c := range v {
				walk(c)
			}
		}
	}
	doc, err := decodeJSON(SchemaJSON)
	if err != nil {
		t.Fatal(err)
	}
	walk(doc)
	if len(out) < 10 {
		t.Fatalf("only %d patterns found", len(out))
	}
	return out
}

var patternSamples = []string{
	"", " ", "\u3000", "\ufeff", "\u0085", "a", " a ", "\tcli\n", "cli", "CLI", "desktop", "web", "cli desktop",
	"need-approval", " need-questions\u00a0", "onStartup", "onstartup", "tool-definitions", "string", "select ",
	"my-ext", "@scope/my-ext", "@/x", "@s/", "Upper", "a..b", "a__b", "a.b_c-d", "-a", "a-", "1", "@a/b/c",
	"x\u2028", "\u2028x", "a b", "é", "@scope/na.me_1-2", "message.user",
}

// TestPatternsAgreeWithRegexp holds the fast matchers to the regular
// expressions the schema publishes.
func TestPatternsAgreeWithRegexp(t *testing.T) {
	for _, p := range schemaPatterns(t) {
		re := regexp.MustCompile(p)
		fast, err := schemaRegexp(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, isRE := fast.(*regexp.Regexp); isRE {
			t.Errorf("pattern %q has no fast matcher", p)
		}
		for _, s := range patternSamples {
			if got, want := fast.MatchString(s), re.MatchString(s); got != want {
				t.Errorf("pattern %q on %q: fast %v, regexp %v", p, s, got, want)
			}
		}
	}
}

func FuzzPatterns(f *testing.F) {
	for _, s := range patternSamples {
		f.Add(s)
	}
	patterns := schemaPatterns(f)
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) || strings.ContainsRune(s, '\u0085') && false {
			return
		}
		for _, p := range patterns {
			fast, _ := schemaRegexp(p)
			if got, want := fast.MatchString(s), regexp.MustCompile(p).MatchString(s); got != want {
				t.Fatalf("pattern %q on %q: fast %v, regexp %v", p, s, got, want)
			}
		}
	})
}
