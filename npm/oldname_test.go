package npm

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestValidOldName(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{"JSONStream", true},
		{"Lenient-Pkg", true},
		{"@Scope/Pkg", true},
		{"fs", true}, // a core module name: a warning for new packages only
		{"crazy!(name)'*~", true},
		{strings.Repeat("a", 300), true},
		{"lodash", true},
		{"", false},
		{".hidden", false},
		{"_under", false},
		{"@scope/.dot", false},
		{" space", false},
		{"has space", false},
		{"node_modules", false},
		{"FAVICON.ICO", false},
		{"a/b", false},
		{"@/b", false},
		{"@s/a/b", false},
		{"@s/", false},
		{"ünïcode", false},
		{"a%2fb", false},
		{"a?b", false},
		{"a#b", false},
		{strings.Repeat("a", maxOldNameLen+1), false},
	}
	for _, tt := range tests {
		if got := ValidOldName(tt.name); got != tt.ok {
			t.Errorf("ValidOldName(%.40q) = %v, want %v", tt.name, got, tt.ok)
		}
	}
}

// TestFullPackumentLegacyName: the registry builder reads packuments of
// packages with legacy names, as npm still serves them.
func TestFullPackumentLegacyName(t *testing.T) {
	reg := newFakeRegistry(t)
	reg.publish("JSONStream", map[string]string{"latest": "1.0.0"}, "1.0.0")
	c := newTestClient(t, reg, t.TempDir(), nil)
	data, err := c.FullPackument(context.Background(), "JSONStream")
	if err != nil || !strings.Contains(string(data), `"JSONStream"`) {
		t.Fatalf("FullPackument(JSONStream) = %.80s, %v", data, err)
	}
	if _, err := c.FullPackument(context.Background(), "a?b"); !errors.Is(err, ErrInvalidSpec) {
		t.Errorf("FullPackument(a?b) = %v, want ErrInvalidSpec", err)
	}
}
