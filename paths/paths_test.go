package paths

import (
	"path/filepath"
	"testing"
)

func TestResolveDataDir(t *testing.T) {
	tests := []struct {
		name string
		flag string
		env  map[string]string
		goos string
		want string // slashes, made native; the flag's made absolute too
		raw  bool   // want is compared as is (the variable is verbatim)
	}{
		{name: "flag wins", flag: "/x/data", env: map[string]string{"SPIRIT_AGENT_DATA_DIR": "/y"}, goos: "linux", want: "/x/data"},
		{name: "env verbatim", env: map[string]string{"SPIRIT_AGENT_DATA_DIR": " /y ", "APPDATA": "/a"}, goos: "linux", want: "/y", raw: true},
		{name: "blank env ignored", env: map[string]string{"SPIRIT_AGENT_DATA_DIR": "  ", "APPDATA": "/a"}, goos: "linux", want: "/a/SpiritAgent"},
		{name: "appdata on linux too", env: map[string]string{"APPDATA": "/a", "HOME": "/h"}, goos: "linux", want: "/a/SpiritAgent"},
		{name: "xdg", env: map[string]string{"HOME": "/h", "XDG_DATA_HOME": "/xdg"}, goos: "linux", want: "/xdg/SpiritAgent"},
		{name: "linux home", env: map[string]string{"HOME": "/h"}, goos: "linux", want: "/h/.local/share/SpiritAgent"},
		{name: "darwin", env: map[string]string{"HOME": "/h"}, goos: "darwin", want: "/h/Library/Application Support/SpiritAgent"},
		{name: "other os", env: map[string]string{"HOME": "/h"}, goos: "freebsd", want: "/h/.spirit-agent"},
		{name: "userprofile", env: map[string]string{"USERPROFILE": "/u"}, goos: "windows", want: "/u/.spirit-agent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := resolveDataDir(tt.flag, func(k string) string { return tt.env[k] }, tt.goos)
			if err != nil {
				t.Fatal(err)
			}
			want := filepath.FromSlash(tt.want)
			if tt.flag != "" {
				// On Windows, /x/data is on the current drive.
				if want, err = filepath.Abs(want); err != nil {
					t.Fatal(err)
				}
			}
			if tt.raw {
				want = tt.want
			}
			if got != want {
				t.Errorf("got %q, want %q", got, want)
			}
		})
	}
	if _, err := resolveDataDir("", func(string) string { return "" }, "linux"); err == nil {
		t.Error("no environment at all: want an error")
	}
}

func TestNames(t *testing.T) {
	if got := PackageDirName("my-ext"); got != "pkg-bXktZXh0" {
		t.Errorf("PackageDirName(my-ext) = %q", got)
	}
	if got := PackageDirName("@example/spirit-extension"); got != "pkg-QGV4YW1wbGUvc3Bpcml0LWV4dGVuc2lvbg" {
		t.Errorf("PackageDirName(@example/spirit-extension) = %q", got)
	}
	p := New("/d", HostCLI)
	if got := p.SettingsFile("my-ext"); got != filepath.FromSlash("/d/extensions/cli/extension-state/ext-bXktZXh0.json") {
		t.Errorf("SettingsFile = %q", got)
	}
}
