package jsjson

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestMarshal(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string
	}{
		{name: "html characters", in: "<a & b>", want: `"<a & b>"`},
		{name: "line separators", in: "a\u2028b\u2029c", want: "\"a\u2028b\u2029c\""},
		{name: "escapes", in: "q\"\\\n\t\x01\x7f", want: "\"q\\\"\\\\\\n\\t\\u0001\x7f\""},
		{name: "backslash before u2028", in: `C:\` + "\u2028dir", want: `"C:\\` + "\u2028dir\""},
		{name: "literal backslash-u2028 text", in: `a\u2028b`, want: `"a\\u2028b"`},
		{name: "invalid utf-8", in: "a\xffb", want: "\"a\uFFFDb\""},
		{name: "number", in: 2.5, want: `2.5`},
		{name: "big number", in: 1e21, want: `1e+21`},
		{name: "small number", in: 1e-7, want: `1e-7`},
		{name: "negative zero", in: math.Copysign(0, -1), want: `0`},
		{name: "infinity", in: math.Inf(1), want: `null`},
		{name: "map", in: map[string]any{"k": true, "10": 1, "2": 2}, want: `{"2":2,"10":1,"k":true}`},
		{name: "object", in: Object{{"b", 1.0}, {"a", []any{"x", nil}}}, want: `{"b":1,"a":["x",null]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Marshal(tt.in)
			if err != nil || string(got) != tt.want {
				t.Errorf("got %s, %v; want %s", got, err, tt.want)
			}
		})
	}
}

func TestCanonical(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{name: "key order kept", in: `{"type": "object", "properties": {"z": {}, "a": {}}, "required": ["z"]}`, want: `{"type":"object","properties":{"z":{},"a":{}},"required":["z"]}`},
		{name: "number literals", in: `{"minimum": 1.5, "maximum": 1000, "x": 1.50, "y": 1e3, "z": -0, "w": 1e400}`, want: `{"minimum":1.5,"maximum":1000,"x":1.5,"y":1000,"z":0,"w":null}`},
		{name: "integer-like keys first", in: `{"b":1,"10":2,"2":3,"01":4,"4294967295":5,"4294967294":6}`, want: `{"2":3,"10":2,"4294967294":6,"b":1,"01":4,"4294967295":5}`},
		{name: "repeated key", in: `{"a":1,"b":2,"a":3}`, want: `{"a":3,"b":2}`},
		{name: "escapes", in: `"\u0041\u2028\/\u001f"`, want: "\"A\u2028/\\u001f\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Canonical([]byte(tt.in))
			if err != nil || string(got) != tt.want {
				t.Errorf("got %s, %v; want %s", got, err, tt.want)
			}
		})
	}
	for _, bad := range []string{``, `{`, `{"a":}`, `1 2`, `[1,]`, strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)} {
		if _, err := Canonical([]byte(bad)); err == nil {
			t.Errorf("Canonical(%.20q) accepted", bad)
		}
	}
}

func TestSortKeys(t *testing.T) {
	got := strings.Join(SortKeys([]string{"b", "10", "a", "2", "-1", "0"}), ",")
	if want := "0,2,10,b,a,-1"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func needNode(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	return node
}

// randomString draws from the characters whose encoding differs between
// JSON encoders: controls, quotes, backslashes, the line separators,
// HTML characters, DEL, astral and private-use code points.
func randomString(r *rand.Rand) string {
	pool := []rune{'"', '\\', '/', '<', '>', '&', 'u', '2', '0', 'a', ' ', 0x7f, 0x85, 0xa0, 0x2028, 0x2029, 0xfeff, 0xfffd, 0x1f600, 0xe000, 0x10ffff}
	var sb strings.Builder
	for range r.IntN(12) {
		switch r.IntN(4) {
		case 0:
			sb.WriteRune(rune(r.IntN(0x20)))
		case 1:
			sb.WriteRune(rune(0x20 + r.IntN(0x2100)))
		default:
			sb.WriteRune(pool[r.IntN(len(pool))])
		}
	}
	return sb.String()
}

// TestMarshalStringMatchesNode encodes generated strings with Marshal and
// with node's JSON.stringify and compares the bytes. The strings travel to
// node as code points and come back as base64, so neither side's JSON
// encoder touches them in transit.
func TestMarshalStringMatchesNode(t *testing.T) {
	node := needNode(t)
	r := rand.New(rand.NewPCG(1, 2))
	var strs []string
	for range 2000 {
		strs = append(strs, randomString(r))
	}
	var in [][]rune
	for _, s := range strs {
		in = append(in, []rune(s))
	}
	input, _ := json.Marshal(in)
	cmd := exec.Command(node, "-e", `
let data = "";
process.stdin.on("data", d => data += d).on("end", () => {
  for (const cps of JSON.parse(data)) {
    const s = String.fromCodePoint(...cps);
    process.stdout.write(Buffer.from(JSON.stringify(s), "utf8").toString("base64") + "\n");
  }
});`)
	cmd.Stdin = bytes.NewReader(input)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(strs) {
		t.Fatalf("node gave %d lines for %d strings", len(lines), len(strs))
	}
	for i, s := range strs {
		want, err := base64.StdEncoding.DecodeString(lines[i])
		if err != nil {
			t.Fatal(err)
		}
		got, _ := Marshal(s)
		if !bytes.Equal(got, want) {
			t.Errorf("Marshal(%q) = %q, JSON.stringify gives %q", s, got, want)
		}
	}
}

// TestCanonicalMatchesNode compares Canonical with
// JSON.stringify(JSON.parse(x)) on documents with the number forms and key
// orders where encoders disagree.
func TestCanonicalMatchesNode(t *testing.T) {
	node := needNode(t)
	docs := []string{
		`{"b":1,"a":2,"10":3,"2":4,"01":5,"-1":6,"4294967294":7,"4294967295":8,"1.5":9}`,
		`[0.1,1e21,1e-7,123456789012345678901234,5e-324,1.7976931348623157e308,-0,0.000001,1E+2,-1.5e-10,100,1.50]`,
		`{"a":{"c":1,"a":[{"y":null,"x":true}]},"a":false,"z":"\u2028\ud83d\ude00<>"}`,
	}
	for _, d := range docs {
		out, err := exec.Command(node, "-e", `process.stdout.write(JSON.stringify(JSON.parse(process.argv[1])))`, d).Output()
		if err != nil {
			t.Fatalf("node: %v", err)
		}
		got, err := Canonical([]byte(d))
		if err != nil || !bytes.Equal(got, out) {
			t.Errorf("Canonical(%s)\n got %s, %v\nnode %s", d, got, err, out)
		}
	}
}

// FuzzCanonical: whatever bytes come in, Canonical either refuses them or
// returns JSON that encoding/json reads back to the same value, and that
// is its own canonical form.
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `"C:\\\u2028dir"`, `[1e400,-0,{"10":1,"2":2}]`, `{"a":1,"a":2}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Canonical(data)
		if err != nil {
			return
		}
		if !utf8.Valid(got) || !json.Valid(got) {
			t.Fatalf("Canonical(%q) = %q, not valid JSON", data, got)
		}
		again, err := Canonical(got)
		if err != nil || !bytes.Equal(again, got) {
			t.Fatalf("Canonical is not stable: %q -> %q -> %q (%v)", data, got, again, err)
		}
	})
}

// FuzzMarshalString: every string encodes to JSON that decodes back to it
// (invalid UTF-8 as U+FFFD).
func FuzzMarshalString(f *testing.F) {
	f.Add(`C:\` + "\u2028dir")
	f.Add("\x00\x1f\"\\")
	f.Fuzz(func(t *testing.T, s string) {
		b, _ := Marshal(s)
		var back string
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("Marshal(%q) = %q: %v", s, b, err)
		}
		if want := strings.ToValidUTF8(s, "\uFFFD"); back != want && utf8.ValidString(s) {
			t.Fatalf("Marshal(%q) reads back as %q", s, back)
		}
	})
}
