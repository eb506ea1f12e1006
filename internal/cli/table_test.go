package cli

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/internal/iostreams"
	"github.com/spiritagents/spirit/internal/termtext"
	goldenfile "github.com/spiritagents/spirit/internal/testutil/golden"
	"github.com/spiritagents/spirit/paths"
)

func TestTruncateWidth(t *testing.T) {
	tests := []struct {
		name string
		in   string
		w    int
		want string
	}{
		{name: "fits", in: "hello", w: 5, want: "hello"},
		{name: "cut", in: "hello world", w: 8, want: "hello w…"},
		{name: "wide runes count twice", in: "中文中文", w: 5, want: "中文…"},
		{name: "combining marks take no column", in: "e\u0301e\u0301e\u0301", w: 3, want: "e\u0301e\u0301e\u0301"},
		{name: "zero width", in: "abc", w: 0, want: ""},
		{name: "one column", in: "abc", w: 1, want: "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := truncateWidth(tt.in, tt.w)
			if got != tt.want || displayWidth(got) > max(tt.w, 0) && tt.w > 0 {
				t.Errorf("truncateWidth(%q, %d) = %q (width %d), want %q", tt.in, tt.w, got, displayWidth(got), tt.want)
			}
		})
	}
}

func TestFuzzyAgo(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		ago  time.Duration
		want string
	}{
		{name: "seconds", ago: 30 * time.Second, want: "just now"},
		{name: "one minute", ago: time.Minute, want: "1 minute ago"},
		{name: "hours", ago: 5 * time.Hour, want: "5 hours ago"},
		{name: "days", ago: 3*24*time.Hour + time.Hour, want: "3 days ago"},
		{name: "months", ago: 65 * 24 * time.Hour, want: "2 months ago"},
		{name: "years", ago: 800 * 24 * time.Hour, want: "about 2 years ago"},
		{name: "future", ago: -48 * time.Hour, want: "2026-12-03"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fuzzyAgo(now, now.Add(-tt.ago)); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// listFixture installs three extensions into a fresh data directory: one
// fine, one disabled, one whose manifest broke after the install.
func listFixture(t *testing.T) (data string, installedAt time.Time) {
	t.Helper()
	data = t.TempDir()
	src := t.TempDir()
	ios, _, _, errOut := iostreams.Test()
	e := &cliEnv{data: data, now: time.Now()}
	f := e.factory(ios, "")
	for _, name := range []string{"alpha-weather", "beta-notes", "gamma-broken"} {
		dir := filepath.Join(src, name)
		pkg := fmt.Sprintf(`{"name":%q,"version":"1.2.3","description":"The %s extension, with a description long enough to need cutting on a narrow terminal","spiritExtension":{"displayName":%q,"supportedHosts":["cli"]}}`, name, name, strings.ToUpper(name))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(pkg), 0o644); err != nil {
			t.Fatal(err)
		}
		if code := Run(t.Context(), f, []string{"extension", "install", dir}); code != 0 {
			t.Fatalf("install %s: %d %s", name, code, errOut)
		}
	}
	if code := Run(t.Context(), f, []string{"extension", "disable", "beta-notes"}); code != 0 {
		t.Fatalf("disable: %d %s", code, errOut)
	}
	p := paths.New(data, paths.HostCLI)
	broken, err := install.Find(p, "gamma-broken")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(broken.Dir, "package.json"), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := install.Find(p, "alpha-weather")
	if err != nil {
		t.Fatal(err)
	}
	return data, time.UnixMilli(in.InstalledAtUnixMs)
}

// The list table at a fixed width on a terminal, the same rows as
// tab-separated lines off a terminal, and --long as key/value blocks.
func TestListTableGolden(t *testing.T) {
	data, at := listFixture(t)
	tests := []struct {
		name string
		tty  bool
		long bool
	}{
		{name: "tty", tty: true},
		{name: "plain", tty: false},
		{name: "long", long: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, out, _ := iostreams.Test()
			ios.SetTTY(tt.tty)
			ios.SetTerminalWidth(60)
			f := &Factory{IO: ios, Getenv: func(string) string { return "" }, Now: func() time.Time { return at.Add(3*24*time.Hour + time.Hour) },
				HTTPClient: newHTTPClient, Global: GlobalOptions{DataDir: data}}
			if err := runList(t.Context(), &ListOptions{f: f, Long: tt.long}); err != nil {
				t.Fatal(err)
			}
			got := out.String()
			for _, in := range []string{at.UTC().Format(time.RFC3339), data} {
				got = strings.ReplaceAll(got, in, "$X")
			}
			// The broken one's time is its own.
			got = rfc3339.ReplaceAllString(got, "$$TIME")
			goldenfile.Check(t, filepath.Join("testdata", "table", "list-"+tt.name+".golden"), []byte(got))
			if !tt.tty && !tt.long && strings.Contains(got, "…") {
				t.Error("plain output was cut")
			}
		})
	}
}

// The marketplace table cuts descriptions to the terminal width; a pipe
// gets them whole.
func TestMarketplaceTableGolden(t *testing.T) {
	for _, w := range []int{70, 100} {
		for _, tty := range []bool{true, false} {
			name := fmt.Sprintf("marketplace-%d-tty-%v", w, tty)
			t.Run(name, func(t *testing.T) {
				e := &cliEnv{data: t.TempDir(), now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
				ios, _, out, _ := iostreams.Test()
				ios.SetTTY(tty)
				ios.SetTerminalWidth(w)
				f := e.factory(ios, fixtureRegistry)
				if err := runMarketplaceList(t.Context(), &MarketplaceListOptions{f: f, mo: &marketplaceOptions{}, All: true}); err != nil {
					t.Fatal(err)
				}
				if tty {
					for i, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
						if displayWidth(line) > w {
							t.Errorf("line %d is %d columns wide, more than %d: %q", i, displayWidth(line), w, line)
						}
					}
				}
				goldenfile.Check(t, filepath.Join("testdata", "table", name+".golden"), out.Bytes())
			})
		}
	}
}

var rfc3339 = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ`)

// factory returns a Factory on ios for the data directory of e and
// registry.
func (e *cliEnv) factory(ios *iostreams.IOStreams, registry string) *Factory {
	return &Factory{
		IO: ios,
		Getenv: func(k string) string {
			switch k {
			case "SPIRIT_AGENT_DATA_DIR":
				return e.data
			case "SPIRIT_REGISTRY":
				return registry
			}
			return ""
		},
		Now:        func() time.Time { return e.now },
		HTTPClient: func() *http.Client { return &http.Client{} },
	}
}

// A cell from outside, however odd, is cut to the width asked, stays a
// prefix of the sanitised text, and the rendered table has no raw
// control character.
func FuzzTableCell(f *testing.F) {
	for _, s := range []string{"", "hello", "中文中文", "e\u0301", "\x1b[2J\r\n\t", "\xff\xfe", "\u202eevil"} {
		f.Add(s, 5)
	}
	f.Fuzz(func(t *testing.T, s string, w int) {
		w = w%200 + 1
		if w < 1 {
			w += 200
		}
		clean := termtext.Line(s)
		got := truncateWidth(clean, w)
		if displayWidth(got) > w {
			t.Fatalf("truncateWidth(%q, %d) = %q, %d columns", clean, w, got, displayWidth(got))
		}
		if !strings.HasPrefix(clean, strings.TrimSuffix(got, "…")) {
			t.Fatalf("not a prefix: %q of %q", got, clean)
		}
		ios, _, out, _ := iostreams.Test()
		ios.SetTTY(true)
		ios.SetTerminalWidth(w + 20)
		tp := newTablePrinter(ios, 1, "A", "B")
		tp.addRow(s, s)
		if err := tp.render(); err != nil {
			t.Fatal(err)
		}
		for _, r := range out.String() {
			if r != '\n' && (r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0)) {
				t.Fatalf("raw control %U in %q", r, out.String())
			}
		}
	})
}
