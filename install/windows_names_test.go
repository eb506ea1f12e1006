package install

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// Every device name Windows reserves is refused, with any case, extension
// or spaces before it; names that only start like one are not.
func TestWindowsReservedNames(t *testing.T) {
	for _, tt := range []struct {
		name string
		want bool
	}{
		{"CON", true}, {"con.txt", true}, {"Nul.tar.gz", true}, {"aux", true}, {"PRN.md", true},
		{"COM0", true}, {"com9.js", true}, {"LPT1", true}, {"lpt0.log", true},
		{"COM\u00b9", true}, {"lpt\u00b2.txt", true}, {"COM\u00b3.x", true},
		{"CON .txt", true}, {"conin$", true}, {"CONOUT$.x", true},
		{"console", false}, {"com10", false}, {"lpt", false}, {"connect.js", false},
		{"nul_", false}, {"COM\u2074", false}, {".con", false}, {"x.con", false},
	} {
		if got := windowsReserved(tt.name); got != tt.want {
			t.Errorf("windowsReserved(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// The name rules Windows needs, on every OS.
func TestCleanNameWindows(t *testing.T) {
	for _, tt := range []struct {
		raw  string
		want error
	}{
		{"a/b.js", nil},
		{"a/NUL", ErrWindowsReserved},
		{"LPT3/x", ErrWindowsReserved},
		{"a/b.", ErrTrailingDot},
		{"a./b", ErrTrailingDot},
		{"a /b", ErrTrailingDot},
		{"a/b:c", ErrWindowsChar},
		{"a/b<c", ErrWindowsChar},
		{`a/"b"`, ErrWindowsChar},
		{"a|b", ErrWindowsChar},
		{"what?", ErrWindowsChar},
		{"*.js", ErrWindowsChar},
		{"a>b", ErrWindowsChar},
		{"C:x", ErrDriveLetter},
	} {
		_, err := cleanName(tt.raw)
		if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) {
			t.Errorf("cleanName(%q) = %v, want %v", tt.raw, err, tt.want)
		}
		if err != nil && !strings.Contains(err.Error(), strconv.Quote(tt.raw)) {
			t.Errorf("the error does not name the entry: %v", err)
		}
	}
}

// The computed limit: MAX_PATH 260 less the NUL and the apps' folder,
// %APPDATA%\SpiritAgent\extensions\desktop\pkg-<base64url(id)>\ for a
// 20-character user name (82 characters plus the encoded id).
func TestWindowsNameLimit(t *testing.T) {
	if n := len(windowsAppsRoot); n != 77 {
		t.Errorf("apps' root is %d characters, want 77", n)
	}
	for _, tt := range []struct {
		id   string
		want int
	}{
		{"", 177},
		{"corpus-ext", 163},     // base64url: 14 characters
		{"@fixture/hello", 158}, // 19
		{strings.Repeat("x", 214), 177 - 286},
	} {
		if got := WindowsNameLimit(tt.id); got != tt.want {
			t.Errorf("WindowsNameLimit(%q) = %d, want %d", tt.id, got, tt.want)
		}
	}
	// At the limit a name passes; one more UTF-16 unit (é is one, 𝄞 two) does not.
	var s nameSet
	name := strings.Repeat("é", 163)
	if err := s.add(name, name, false); err != nil {
		t.Fatal(err)
	}
	if err := s.checkLength("corpus-ext"); err != nil {
		t.Errorf("a name of 163 units: %v", err)
	}
	s = nameSet{}
	name = strings.Repeat("é", 162) + "\U0001D11E"
	_ = s.add(name, name, false)
	if err := s.checkLength("corpus-ext"); !errors.Is(err, ErrPathTooLong) {
		t.Errorf("a name of 164 units: %v", err)
	}
}
