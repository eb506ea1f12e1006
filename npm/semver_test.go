package npm

import (
	"errors"
	"testing"
)

// TestParseRange holds a few of npm's answers in place without node (the
// full comparison is TestRangesAgreeWithNodeSemver).
func TestParseRange(t *testing.T) {
	versions := []string{"1.2.3", "1.2.4", "1.3.0-beta.1", "1.3.0", "2.0.0"}
	tests := []struct {
		name, rng, max string
		invalid        bool
	}{
		{"comma is no range in npm", "1.2.3,1.2.4", "", true},
		{"caret", "^1.2.3", "1.3.0", false},
		{"tilde", "~1.2.3", "1.2.4", false},
		{"hyphen", "1.2.3 - 1.2", "1.2.4", false},
		{"x-range", "1.x", "1.3.0", false},
		{"or", "<1.2.4 || >=2", "2.0.0", false},
		{"prerelease named", ">=1.3.0-beta.0 <1.3.0", "1.3.0-beta.1", false},
		{"prerelease not named", ">=1.2.5 <1.3.0", "", false},
		{"space after operator", ">= 1.2.3 < 1.2.4", "1.2.3", false},
		{"garbage", "1.2.3 foo", "", true},
		{"any", "", "2.0.0", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := ParseRange(tt.rng)
			if tt.invalid {
				if !errors.Is(err, ErrInvalidRange) {
					t.Fatalf("ParseRange(%q) = %v, want ErrInvalidRange", tt.rng, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := r.MaxSatisfying(versions); got != tt.max {
				t.Errorf("MaxSatisfying = %q, want %q", got, tt.max)
			}
		})
	}
}

// FuzzParseRange: any input parses or is refused with ErrInvalidRange,
// never panics, and what MaxSatisfying picks satisfies the range.
func FuzzParseRange(f *testing.F) {
	for _, r := range rangeCorpus() {
		f.Add(r, "1.2.3-beta.1")
	}
	f.Fuzz(func(t *testing.T, rng, version string) {
		r, err := ParseRange(rng)
		if err != nil {
			if !errors.Is(err, ErrInvalidRange) {
				t.Fatalf("ParseRange(%q) = %v, not ErrInvalidRange", rng, err)
			}
			return
		}
		vs := append([]string{version}, versionCorpus...)
		if best := r.MaxSatisfying(vs); best != "" && !r.Test(best) {
			t.Fatalf("MaxSatisfying(%q) = %q, which does not satisfy it", rng, best)
		}
		if again, err := ParseRange(rng); err != nil || len(again.set) != len(r.set) {
			t.Fatalf("ParseRange(%q) is not deterministic: %v", rng, err)
		}
	})
}
