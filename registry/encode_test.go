package registry

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"
)

func TestFormatNumber(t *testing.T) {
	tests := []struct{ name, lit, want string }{
		{"integer", "1", "1"},
		{"float one", "1.0", "1"},
		{"fraction", "2.5", "2.5"},
		{"trailing zeros", "1.500", "1.5"},
		{"negative", "-3", "-3"},
		{"negative zero", "-0", "-0"},
		{"zero", "0", "0"},
		{"small plain", "0.0001", "0.0001"},
		{"small exponent", "0.00001", "1e-05"},
		{"fifteen zeros stay plain", "1000000000000000", "1000000000000000"},
		{"sixteen zeros past one digit", "10000000000000000", "1e+16"},
		{"many digits stay plain", "12345678901234567", "12345678901234568"},
		{"exponent form", "1e100", "1e+100"},
		{"long mantissa exponent", "1.5e300", "1.5e+300"},
		{"rounded", "123456789012345678901234", "123456789012345690000000"},
		{"overflow clamps", "1e1000", "1.7976931348623157e+308"},
		{"negative overflow", "-1e1000", "-1.7976931348623157e+308"},
		{"exponent literal", "2E3", "2000"},
		{"shortest", "0.1", "0.1"},
		{"third", "0.3333333333333333", "0.3333333333333333"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FormatNumber(tt.lit); got != tt.want {
				t.Errorf("FormatNumber(%s) = %s, want %s", tt.lit, got, tt.want)
			}
		})
	}
}

func TestEncode(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"empty containers", `{"a":[],"b":{}}`, "{\n  \"a\": [],\n  \"b\": {}\n}\n"},
		{"key order kept", `{"z":1,"a":2}`, "{\n  \"z\": 1,\n  \"a\": 2\n}\n"},
		{"duplicate key keeps first place", `{"a":1,"b":2,"a":3}`, "{\n  \"a\": 3,\n  \"b\": 2\n}\n"},
		{"nested", `[1,[2,{"x":null}]]`, "[\n  1,\n  [\n    2,\n    {\n      \"x\": null\n    }\n  ]\n]\n"},
		{"escapes", `"\"\\\n\t\r\b\f\u0001\u001f\u007f"`, `"\"\\\n\t\r\b\f\u0001\u001f\u007f"` + "\n"},
		{"no html escaping", `"<a href='x'>&</a> /"`, `"<a href='x'>&</a> /"` + "\n"},
		{"raw unicode separators", `"\u2028\u2029 é 😀"`, "\"\u2028\u2029 é 😀\"\n"},
		{"lone surrogate", `"\ud800"`, "\"\ufffd\"\n"},
		{"booleans", `[true,false,null]`, "[\n  true,\n  false,\n  null\n]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := ParseValue([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if got := string(Encode(v)); got != tt.want {
				t.Errorf("Encode(%s) =\n%q\nwant\n%q", tt.in, got, tt.want)
			}
		})
	}
}

func TestToString(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"string", `"x y"`, "x y"},
		{"number", `1.0`, "1"},
		{"bool", `true`, "true"},
		{"null", `null`, "null"},
		{"object compact", `{"b": 1, "a": [2, "x"]}`, `{"b":1,"a":[2,"x"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := ParseValue([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if got := v.ToString(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestNormalizeRepoURL(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"git+https", "git+https://github.com/a/b.git", "https://github.com/a/b"},
		{"git protocol", "git://github.com/a/b.git", "https://github.com/a/b"},
		{"git protocol other host", "git://gitlab.com/a/b.git", "git://gitlab.com/a/b"},
		{"ssh", "git+ssh://git@github.com/a/b.git", "ssh://git@github.com/a/b"},
		{"scp form", "git@github.com:u/r.git", "git@github.com:u/r"},
		{"shorthand", "github:u/r", "github:u/r"},
		{"one .git only", "https://x/zz.git.git", "https://x/zz.git"},
		{"case-sensitive", "GIT+HTTPS://x/zz.GIT", "GIT+HTTPS://x/zz.GIT"},
		{".git before final newline", "https://x/r.git\n", "https://x/r\n"},
		{"no .git", "https://x/r", "https://x/r"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := normalizeRepoURL(tt.in); got != tt.want {
				t.Errorf("normalizeRepoURL(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestIconURL(t *testing.T) {
	tests := []struct{ name, icon, want string }{
		{"dot slash", "./assets/icon.png", "assets/icon.png"},
		{"plain", "icons/night.png", "icons/night.png"},
		{"parent dirs", "../../up.png", "up.png"},
		{"absolute", "/abs/icon.svg", "abs/icon.svg"},
		{"backslashes after stripping", `.\icons\edge.png`, "/icons/edge.png"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := "https://cdn.jsdelivr.net/npm/@a/b@1.0.0+build.5/" + tt.want
			if got := IconURL("@a/b", "1.0.0+build.5", tt.icon); got != want {
				t.Errorf("got %q, want %q", got, want)
			}
		})
	}
}

func TestBlank(t *testing.T) {
	tests := []struct {
		name, in string
		want     bool
	}{
		{"empty", `""`, true},
		{"spaces", `" \t\n"`, true},
		{"nbsp and ideographic", `"\u00a0\u3000\u2028\u0085"`, true},
		{"zero width space is not white space", `"\u200b"`, false},
		{"false", `false`, true},
		{"null", `null`, true},
		{"zero", `0`, false},
		{"true", `true`, false},
		{"empty array", `[]`, false},
		{"text", `" a "`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := ParseValue([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if got := v.blank(); got != tt.want {
				t.Errorf("blank(%s) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

// FuzzEncode checks that the encoder's output is valid JSON equal (in
// jq's sense) to its input, for any document that parses.
func FuzzEncode(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5,"x\u007f"],"b":{}}`, `"\u2028<>&"`, `[1e400,-0,0.00001]`, `{"a":1,"a":2}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := ParseValue(data)
		if err != nil {
			return
		}
		out := Encode(v)
		if !utf8.Valid(out) || !json.Valid(out) {
			t.Fatalf("invalid output %q for %q", out, data)
		}
		back, err := ParseValue(out)
		if err != nil {
			t.Fatalf("output does not parse: %v\n%s", err, out)
		}
		if !Equal(back, v) {
			t.Fatalf("round trip changed the value:\n%s\n%s", data, out)
		}
		if again := Encode(back); string(again) != string(out) {
			t.Fatalf("encoding is not stable:\n%s\n%s", out, again)
		}

	})
}

// FuzzCheckEntry feeds arbitrary bytes to the entry parser and checks: it
// never panics, a problem always names the file, and an entry without
// problems can be built into a catalog item key set.
func FuzzCheckEntry(f *testing.F) {
	f.Add([]byte(`{"schemaVersion":1,"extensionId":"a.b","packageName":"p","status":"listed","featured":true,"defaultVersion":"1","defaultReviewStatus":"verified","versions":[{"version":"1","channel":"stable","reviewStatus":"verified","changelog":{"summary":"s","body":"b"}}]}`))
	f.Add([]byte(`{"versions":[1,{"changelog":3},{"version":null}],"status":["listed"]}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"a":`))
	f.Fuzz(func(t *testing.T, data []byte) {
		e, ps := CheckEntry("/r/registry/extensions/x/entry.json", data)
		for _, p := range ps {
			if p.File == "" || p.Message == "" {
				t.Fatalf("problem without file or message: %+v", p)
			}
		}
		if e == nil || len(ps) > 0 {
			return
		}
		if !safeSegment(e.ID()) {
			t.Fatalf("unsafe id %q passed", e.ID())
		}
		vs := make([]*Value, 0, len(e.versions()))
		for _, item := range e.versions() {
			v, _ := item.Get("version")
			vs = append(vs, Object().Set("version", String(v.ToString())))
		}
		if _, err := catalogItem(e, vs); err != nil {
			// Only non-string versions can miss the default (spec §3.4).
			dv := e.field("defaultVersion")
			if dv != nil && dv.Kind == KindString {
				t.Fatalf("catalog item: %v", err)
			}
		}
	})
}

// FuzzParseValue checks the parser against encoding/json: the same
// documents are accepted, and they decode to the same values.
func FuzzParseValue(f *testing.F) {
	for _, s := range []string{`{"a":[1,-0.5e+3,"\u00e9\ud83d\ude00"],"b":{},"a":null}`, `"\ud800x"`, "\"\xff\"", `01`, `1.`, `-`, `[1,]`, `{"a" 1}`, ` true `, `"\q"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := ParseValue(data)
		if (err == nil) != json.Valid(data) {
			t.Fatalf("ParseValue error %v, json.Valid %v for %q", err, json.Valid(data), data)
		}
		if err != nil {
			return
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var want any
		if err := dec.Decode(&want); err != nil {
			t.Fatal(err)
		}
		if got := v.toAny(); !reflect.DeepEqual(got, want) {
			t.Fatalf("ParseValue(%q) = %#v, want %#v", data, got, want)
		}
	})
}
