package scaffold

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spiritagents/spirit/internal/testutil/tempdir"
	"github.com/spiritagents/spirit/manifest"
)

func TestRenderValidatesStrictly(t *testing.T) {
	for _, tmpl := range Templates {
		for _, hosts := range [][]string{nil, {"cli"}, {"desktop"}} {
			t.Run(string(tmpl)+"/"+strings.Join(hosts, ","), func(t *testing.T) {
				dir := filepath.Join(tempdir.New(t), "ext")
				names, err := Write(dir, Options{Name: "@acme/my-ext", Template: tmpl, Hosts: hosts, DisplayName: `Quote "and" \ back`})
				if err != nil {
					t.Fatal(err)
				}
				if len(names) != 4 {
					t.Fatalf("wrote %v", names)
				}
				data, err := os.ReadFile(filepath.Join(dir, "package.json"))
				if err != nil {
					t.Fatal(err)
				}
				r := manifest.Validate(data, manifest.DirFS(dir), manifest.Options{Strict: true, Host: "cli"})
				if hosts != nil && hosts[0] == "desktop" {
					r = manifest.Validate(data, manifest.DirFS(dir), manifest.Options{Strict: true, Host: "desktop"})
				}
				if len(r.Problems) > 0 || r.Manifest.ID != "@acme/my-ext" {
					t.Fatalf("problems: %+v", r.Problems)
				}
			})
		}
	}
}

func TestRenderRefuses(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"upper case", Options{Name: "MyExt"}, "invalid name"},
		{"space", Options{Name: "my ext"}, "invalid name"},
		{"empty", Options{Name: " "}, "must not be empty"},
		{"bad template", Options{Name: "ok", Template: "widgets"}, "unknown template"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Render(tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
	var ne *InvalidNameError
	if _, err := Render(Options{Name: "Bad"}); !errors.As(err, &ne) || !strings.Contains(ne.Message, "npm package name") {
		t.Fatalf("want the apps' name message, got %v", err)
	}
}

func TestWriteRefusesNonEmpty(t *testing.T) {
	dir := tempdir.New(t)
	if err := os.WriteFile(filepath.Join(dir, "keep.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(dir, Options{Name: "ok"}); !errors.Is(err, ErrNotEmpty) {
		t.Fatalf("err = %v, want ErrNotEmpty", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "package.json")); err == nil {
		t.Fatal("package.json written into a non-empty directory")
	}
}

func TestParseHostsAndDisplayName(t *testing.T) {
	tests := []struct {
		in   string
		want string
		err  bool
	}{
		{"cli,desktop", "cli,desktop", false},
		{"desktop, cli", "cli,desktop", false},
		{"cli", "cli", false},
		{"web", "", true},
		{",", "", true},
	}
	for _, tt := range tests {
		got, err := ParseHosts(tt.in)
		if (err != nil) != tt.err || strings.Join(got, ",") != tt.want {
			t.Errorf("ParseHosts(%q) = %v, %v", tt.in, got, err)
		}
	}
	if got := DefaultDisplayName("@acme/weather-tools"); got != "Weather Tools" {
		t.Errorf("DefaultDisplayName = %q", got)
	}
}

func TestSpiritRange(t *testing.T) {
	tests := []struct{ name, version, want string }{
		{name: "release", version: "v1.2.3", want: "^1.2.3"},
		{name: "release without v", version: "0.4.0", want: "^0.4.0"},
		{name: "prerelease", version: "v1.2.3-rc.1", want: "latest"},
		{name: "after a tag", version: "v1.2.3-4-gabc1234", want: "latest"},
		{name: "commit only", version: "58d74b8-dirty", want: "latest"},
		{name: "development build", version: "dev", want: "latest"},
		{name: "leading zero", version: "v1.02.3", want: "latest"},
		{name: "empty", version: "", want: "latest"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SpiritRange(tt.version); got != tt.want {
				t.Errorf("SpiritRange(%q) = %q, want %q", tt.version, got, tt.want)
			}
		})
	}
}

// A new package gets spirit from npm: a devDependency for the writing
// spirit's version, and validate and pack scripts that run it.
func TestRenderDevDependencyAndScripts(t *testing.T) {
	files, err := Render(Options{Name: "my-ext", SpiritVersion: "v1.4.0"})
	if err != nil {
		t.Fatal(err)
	}
	var pj struct {
		Scripts         map[string]string
		DevDependencies map[string]string
	}
	if err := json.Unmarshal(files[0].Data, &pj); err != nil {
		t.Fatal(err)
	}
	if got := pj.DevDependencies[SpiritPackage]; got != "^1.4.0" || len(pj.DevDependencies) != 1 {
		t.Errorf("devDependencies = %v", pj.DevDependencies)
	}
	if pj.Scripts["validate"] != "spirit extension validate ." || pj.Scripts["pack"] != "spirit extension pack" {
		t.Errorf("scripts = %v", pj.Scripts)
	}
}
