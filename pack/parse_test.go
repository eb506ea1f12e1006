package pack

import (
	"strings"
	"testing"
)

const npmOutput = `[{"id":"@acme/pk@0.1.0","name":"@acme/pk","version":"0.1.0","filename":"acme-pk-0.1.0.tgz",
"files":[{"path":"package.json","size":10,"mode":420},{"path":"README.md","size":5,"mode":420},{"path":"bin/x","size":1,"mode":493}]}]`

func TestParseList(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"npm output", npmOutput, ""},
		{"not json", "npm ERR! oops", "gave no package list"},
		{"two packages", `[{"filename":"a.tgz"},{"filename":"b.tgz"}]`, "gave no package list"},
		{"escaping path", `[{"filename":"a.tgz","files":[{"path":"../x"}]}]`, "unsafe path"},
		{"dot path", `[{"filename":"a.tgz","files":[{"path":"."}]}]`, "unsafe path"},
		{"directory in name", `[{"filename":"../a.tgz","files":[]}]`, "unusable tarball name"},
		{"not a tgz", `[{"filename":"a.zip","files":[]}]`, "unusable tarball name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := ParseList([]byte(tt.in))
			if tt.want != "" {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("err = %v, want %q", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if l.Stem() != "acme-pk-0.1.0" || len(l.Files) != 3 || l.Files[0].Path != "README.md" || l.Files[1].Path != "bin/x" {
				t.Errorf("list = %+v", l)
			}
		})
	}
}

// FuzzParseList: npm's output never panics the parser, and every list it
// accepts has only clean relative paths and a plain .tgz name.
func FuzzParseList(f *testing.F) {
	f.Add([]byte(npmOutput))
	f.Add([]byte(`[{"filename":"a.tgz","files":[{"path":"a/../b"}]}]`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := ParseList(data)
		if err != nil {
			return
		}
		if strings.ContainsAny(l.Filename, `/\`) || !strings.HasSuffix(l.Filename, ".tgz") {
			t.Fatalf("accepted tarball name %q", l.Filename)
		}
		for _, f := range l.Files {
			if checkPath(f.Path) != nil {
				t.Fatalf("accepted path %q", f.Path)
			}
		}
	})
}
