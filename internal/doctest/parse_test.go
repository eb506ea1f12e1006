package doctest

import (
	"strings"
	"testing"
)

func TestBlocks(t *testing.T) {
	doc := strings.Join([]string{
		"# t",
		"```sh",
		"echo a",
		"```",
		"- item",
		"  ```console",
		"  $ echo b",
		"  b",
		"  ```",
		"```text",
		"$ not run",
		"```",
		"````sh",
		"cat <<'X'",
		"```",
		"X",
		"````",
		"```json",
		"{}",
		"```",
	}, "\n")
	got, err := Blocks("d.md", doc)
	if err != nil {
		t.Fatal(err)
	}
	want := []Block{
		{File: "d.md", Line: 2, Lang: "sh", Body: "echo a\n"},
		{File: "d.md", Line: 6, Lang: "console", Body: "$ echo b\nb\n"},
		{File: "d.md", Line: 13, Lang: "sh", Body: "cat <<'X'\n```\nX\n"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d blocks %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("block %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	if _, err := Blocks("d.md", "```sh\necho\n"); err == nil {
		t.Error("an unclosed block was accepted")
	}
}

func TestSteps(t *testing.T) {
	b := Block{File: "d.md", Line: 10, Lang: "console", Body: "$ a \\\n  --x\nout 1\n\n$ b\nError: no\n(exit 3)\n$ c\n"}
	got, err := Steps(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("got %+v", got)
	}
	if got[0].Command != "a \\\n  --x" || got[0].Line != 11 || len(got[0].Want) != 1 || got[0].Exit != 0 {
		t.Errorf("step 0: %+v", got[0])
	}
	if got[1].Command != "b" || got[1].Exit != 3 || len(got[1].Want) != 1 || got[1].Want[0] != "Error: no" {
		t.Errorf("step 1: %+v", got[1])
	}
	if got[2].Command != "c" || got[2].Want != nil {
		t.Errorf("step 2: %+v", got[2])
	}
	if _, err := Steps(Block{Body: "output first\n$ a\n"}); err == nil {
		t.Error("a console block without a leading $ line was accepted")
	}
}

func TestMatch(t *testing.T) {
	tests := []struct {
		name string
		want []string
		out  string
		ok   bool
	}{
		{name: "exact", want: []string{"a", "b"}, out: "a\nb\n", ok: true},
		{name: "trailing blanks", want: []string{"a  "}, out: "a\t\n\n", ok: true},
		{name: "extra line", want: []string{"a"}, out: "a\nb\n", ok: false},
		{name: "missing line", want: []string{"a", "b"}, out: "a\n", ok: false},
		{name: "wrong text", want: []string{"Hello, Ada!"}, out: "Hello, Bo!\n", ok: false},
		{name: "ellipsis in line", want: []string{"id: …/pkg-…"}, out: "id: /tmp/x/pkg-abc\n", ok: true},
		{name: "ellipsis is not anything at the start", want: []string{"x…"}, out: "yx\n", ok: false},
		{name: "ellipsis line", want: []string{"a", "…", "z"}, out: "a\nb\nc\nz\n", ok: true},
		{name: "ellipsis line, none", want: []string{"a", "…", "z"}, out: "a\nz\n", ok: true},
		{name: "regexp characters are literal", want: []string{"a.*b"}, out: "axxb\n", ok: false},
		{name: "no output", want: nil, out: "", ok: true},
		{name: "output where none was shown", want: nil, out: "x\n", ok: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Match(tt.want, tt.out); got != tt.ok {
				t.Errorf("Match(%q, %q) = %v, want %v", tt.want, tt.out, got, tt.ok)
			}
		})
	}
}
