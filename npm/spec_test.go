package npm

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestParseSpec(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		wantName  string
		wantRange string
		wantErr   bool
	}{
		{name: "npm prefix bare", in: "npm:left-pad", wantName: "left-pad"},
		{name: "npm prefix range", in: "npm:left-pad@^1.2", wantName: "left-pad", wantRange: "^1.2"},
		{name: "npm prefix tag", in: "npm:left-pad@beta", wantName: "left-pad", wantRange: "beta"},
		{name: "name at range", in: "left-pad@1.x", wantName: "left-pad", wantRange: "1.x"},
		{name: "name at exact", in: "left-pad@1.2.3", wantName: "left-pad", wantRange: "1.2.3"},
		{name: "scoped bare", in: "@scope/name", wantName: "@scope/name"},
		{name: "scoped range", in: "@scope/name@>=1.0.0 <2", wantName: "@scope/name", wantRange: ">=1.0.0 <2"},
		{name: "scoped npm prefix", in: "npm:@scope/name@next", wantName: "@scope/name", wantRange: "next"},
		{name: "prerelease range", in: "x@1.0.0-beta.1", wantName: "x", wantRange: "1.0.0-beta.1"},
		{name: "or range", in: "x@1 || 2", wantName: "x", wantRange: "1 || 2"},
		{name: "bare unscoped", in: "left-pad", wantErr: true},
		{name: "empty", in: "", wantErr: true},
		{name: "npm prefix empty", in: "npm:", wantErr: true},
		{name: "empty range", in: "left-pad@", wantErr: true},
		{name: "uppercase", in: "npm:LeftPad", wantErr: true},
		{name: "scope without name", in: "@scope", wantErr: true},
		{name: "scope empty name", in: "@scope/@1", wantErr: true},
		{name: "leading dot", in: "npm:.hidden", wantErr: true},
		{name: "leading underscore", in: "npm:_x", wantErr: true},
		{name: "space in name", in: "npm:a b", wantErr: true},
		{name: "bad range", in: "x@>=>1", wantErr: true},
		{name: "path separator", in: "npm:a/b", wantErr: true},
		{name: "url chars", in: "npm:a%2f", wantErr: true},
		{name: "too long", in: "npm:" + string(make([]byte, 300)), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseSpec(tt.in)
			if tt.wantErr {
				if !errors.Is(err, ErrInvalidSpec) {
					t.Fatalf("ParseSpec(%q) = %+v, %v; want ErrInvalidSpec", tt.in, got, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseSpec(%q): %v", tt.in, err)
			}
			if got.Name != tt.wantName || got.Range != tt.wantRange || got.Raw != tt.in {
				t.Errorf("ParseSpec(%q) = %+v; want name %q range %q", tt.in, got, tt.wantName, tt.wantRange)
			}
		})
	}
}

func TestIsSpec(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.MkdirAll(filepath.Join(dir, "@local", "ext@1"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		in   string
		want bool
	}{
		{name: "npm prefix", in: "npm:left-pad", want: true},
		{name: "scoped", in: "@scope/name", want: true},
		{name: "scoped range", in: "@scope/name@^1.2", want: true},
		{name: "name at range", in: "left-pad@^1", want: true},
		{name: "name at tag", in: "left-pad@latest", want: true},
		{name: "bare name is a path", in: "left-pad", want: false},
		{name: "relative dir", in: "./ext", want: false},
		{name: "parent dir", in: "../ext@1", want: false},
		{name: "absolute", in: "/tmp/ext", want: false},
		{name: "zip", in: "ext@1.zip", want: false},
		{name: "tgz", in: "ext-1.0.0.tgz", want: false},
		{name: "tar.gz", in: "@scope/x@1.tar.gz", want: false},
		{name: "https url", in: "https://example.com/x.tgz", want: false},
		{name: "git url", in: "git+https://example.com/x@1", want: false},
		{name: "windows path", in: `C:\ext`, want: false},
		{name: "existing dir", in: "@local/ext@1", want: false},
		{name: "empty", in: "", want: false},
		{name: "home", in: "~/ext@1", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsSpec(tt.in); got != tt.want {
				t.Errorf("IsSpec(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{"npm:a", "a@1", "@s/n@^1.2.3-beta", "npm:@s/n@latest", "@s", "x@1 || >=2 <3", "npm:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sp, err := ParseSpec(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidSpec) {
				t.Fatalf("error not ErrInvalidSpec: %v", err)
			}
			return
		}
		if !ValidName(sp.Name) || sp.Raw != s {
			t.Fatalf("ParseSpec(%q) = %+v", s, sp)
		}
		again, err := ParseSpec("npm:" + sp.String())
		if err != nil || again.Name != sp.Name || again.Range != sp.Range {
			t.Fatalf("round trip of %q: %+v, %v", s, again, err)
		}
	})
}
