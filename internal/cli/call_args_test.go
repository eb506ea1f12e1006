package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestToolArguments(t *testing.T) {
	file := filepath.Join(t.TempDir(), "args.json")
	if err := os.WriteFile(file, []byte("{\"b\": 1.50,\n \"a\": \"x\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, args, stdin string
		raw, fields       []string
		want, err         string
	}{
		{name: "inline kept as written", args: `{"b": 1.50, "a": 1e3}`, want: `{"b": 1.50, "a": 1e3}`},
		{name: "file", args: "@" + file, want: "{\"b\": 1.50,\n \"a\": \"x\"}"},
		{name: "stdin", args: "-", stdin: ` {"text":"hi"} `, want: `{"text":"hi"}`},
		{name: "fields on top, in order", args: `{"b":1,"a":2}`, raw: []string{"a=two", "c=3"}, fields: []string{"d=[1,2]", "b=null"},
			want: `{"b":null,"a":"two","c":"3","d":[1,2]}`},
		{name: "fields alone", args: "{}", raw: []string{"text=a=b"}, want: `{"text":"a=b"}`},
		{name: "broken JSON names the place", args: "{\n\"a\": }", err: "--args is not valid JSON: line 2, column 6"},
		{name: "missing file", args: "@/nonexistent/args.json", err: "--args @/nonexistent/args.json: open"},
		{name: "fields need an object", args: `[1]`, raw: []string{"a=b"}, err: "must be a JSON object"},
		{name: "field without =", args: "{}", raw: []string{"text"}, err: `-f "text": want key=value`},
		{name: "-F value not JSON", args: "{}", fields: []string{"n=abc"}, err: `-F "n=abc": the value is not JSON`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := toolArguments(tt.args, tt.raw, tt.fields, strings.NewReader(tt.stdin))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Fatalf("got %s, %v; want %s", got, err, tt.want)
			}
		})
	}
}
