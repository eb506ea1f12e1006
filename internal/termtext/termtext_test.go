package termtext

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLine(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "fixture.hello", "fixture.hello"},
		{"unicode stays", "Grüße – 日本", "Grüße – 日本"},
		{"csi", "a\x1b[2Jb", `a\x1b[2Jb`},
		{"osc 52 clipboard", "\x1b]52;c;ZWNobyBoaQ==\x07", `\x1b]52;c;ZWNobyBoaQ==\x07`},
		{"osc 8 link", "\x1b]8;;https://evil.example\x1b\\docs\x1b]8;;\x1b\\", `\x1b]8;;https://evil.example\x1b\docs\x1b]8;;\x1b\`},
		{"carriage return and erase line", "x\r\x1b[Kreview: verified", `x\x0d\x1b[Kreview: verified`},
		{"newline and tab", "a\nb\tc", `a\x0ab\x09c`},
		{"del", "a\x7fb", `a\x7fb`},
		{"c1 csi", "a\u009b2Jb", `a\u009b2Jb`},
		{"bidi override", "evil\u202egpj.exe", `evil\u202egpj.exe`},
		{"bidi isolate", "\u2066x\u2069", `\u2066x\u2069`},
		{"invalid utf-8", "a\xffb\xc3", `a\xffb\xc3`},
		{"nul", "a\x00b", `a\x00b`},
		{"workflow command at the start", "::error::pwned", `\x3a:error::pwned`},
		{"colons inside", "a::b", "a::b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Line(tt.in); got != tt.want {
				t.Errorf("Line(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if got := Sprintf("%s", tt.in); got != tt.want {
				t.Errorf("Sprintf(%%s, %q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestText(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"markdown stays", "# Title\n\n- item\n\tcode\n", "# Title\n\n- item\n\tcode\n"},
		{"crlf becomes lf", "a\r\nb\r\n", "a\nb\n"},
		{"lone cr", "fake\rreal", `fake\x0dreal`},
		{"escape sequences", "\x1b[31mred\x1b[0m\n", "\\x1b[31mred\\x1b[0m\n"},
		{"workflow command on a line", "ok\n::error file=x::bad\n  ::warning::w\n", "ok\n\\x3a:error file=x::bad\n  \\x3a:warning::w\n"},
		{"first line", "::add-mask::x", `\x3a:add-mask::x`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Text(tt.in); got != tt.want {
				t.Errorf("Text(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestSprintf(t *testing.T) {
	id := "x\x1b[2K\rExtension is VERIFIED and signed."
	got := Sprintf("Extension %s is not verified. Install it anyway? [y/N] ", id)
	want := `Extension x\x1b[2K\x0dExtension is VERIFIED and signed. is not verified. Install it anyway? [y/N] `
	if got != want {
		t.Errorf("prompt = %q, want %q", got, want)
	}
	// A value that would start a line with a workflow command, through a
	// newline of its own or through the format.
	if got := Sprintf("%s\n", "::error::x"); got != "\\x3a:error::x\n" {
		t.Errorf("line start = %q", got)
	}
	if got := Sprintf("name: %s\n", "a\n::error::x"); got != `name: a\x0a::error::x`+"\n" {
		t.Errorf("newline in a value = %q", got)
	}
	if got := Sprintf("%v; %d; %q", errors.New("bad\x1b]0;title\x07"), 42, "q\x1b"); got != `bad\x1b]0;title\x07; 42; "q\x1b"` {
		t.Errorf("verbs = %q", got)
	}
	if got := Sprintf("%s\n\nRun it?", Multiline("line one\nline \x1b[1mtwo")); got != "line one\nline \\x1b[1mtwo\n\nRun it?" {
		t.Errorf("multiline = %q", got)
	}
	if got := Sprintf("%-6s|", "ab"); got != "ab    |" {
		t.Errorf("width = %q", got)
	}
}

// checkSafe fails when out holds a byte or rune a terminal or a CI log
// would act on.
func checkSafe(t *testing.T, in, out string, multi bool) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("invalid UTF-8 out of %q: %q", in, out)
	}
	for _, r := range out {
		if multi && (r == '\n' || r == '\t') {
			continue
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || isBidi(r) {
			t.Fatalf("raw %U out of %q: %q", r, in, out)
		}
	}
	for line := range strings.SplitSeq(out, "\n") {
		if strings.HasPrefix(strings.TrimLeft(line, " \t"), "::") {
			t.Fatalf("workflow command out of %q: %q", in, out)
		}
	}
}

func FuzzSanitise(f *testing.F) {
	for _, s := range []string{"plain", "\x1b[2J", "a\r\nb", "::error::x", "\n  ::x", "\u202e", "\xff\xfe", "\u009b", "x\\x1b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkSafe(t, s, Line(s), false)
		checkSafe(t, s, Text(s), true)
		checkSafe(t, s, Sprintf("%s\n%v\n", s, Multiline(s)), true)
		checkSafe(t, s, Sprintf("%s", s), false)
		if isPlain(s) && !strings.Contains(s, "::") && Line(s) != s {
			t.Fatalf("printable ASCII changed: %q -> %q", s, Line(s))
		}
	})
}

// BenchmarkSprintf measures a line of human output with plain and with
// hostile operands.
func BenchmarkSprintf(b *testing.B) {
	for _, bc := range []struct{ name, v string }{
		{"plain", "spiritagent.system-message-demo"},
		{"hostile", "evil\x1b]52;c;cHduZWQ=\x07\r\x1b[Kreview: verified\u202e"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				_ = Sprintf("  - %s\n    id: %s\n", bc.v, bc.v)
			}
		})
	}
}

// FuzzJSON: JSON keeps the value of any JSON text encoding/json writes and
// leaves none of the characters Line escapes raw in it.
func FuzzJSON(f *testing.F) {
	for _, s := range []string{"plain", "\x1b]52;c;x\x07", "tool\u009b31m", "\u202eevil\x7f", "é\u2067x", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(map[string]any{"k": s, "l": []string{s, s}}); err != nil {
			t.Fatal(err)
		}
		got := JSON(b.Bytes())
		var before, after any
		if err := json.Unmarshal(b.Bytes(), &before); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(got, &after); err != nil {
			t.Fatalf("JSON(%q) = %q is not JSON: %v", b.Bytes(), got, err)
		}
		if !reflect.DeepEqual(before, after) {
			t.Fatalf("value changed: %q -> %q", b.Bytes(), got)
		}
		for _, r := range string(got) {
			if r == 0x7f || r >= 0x80 && r <= 0x9f || isBidi(r) || r < 0x20 && r != '\n' {
				t.Fatalf("raw %U left in %q", r, got)
			}
		}
	})
}
