package npm

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func packument(tags map[string]string, deprecated []string, versions ...string) *Packument {
	p := &Packument{Name: "p", DistTags: tags, Versions: map[string]PackumentVersion{}}
	for _, v := range versions {
		p.Versions[v] = PackumentVersion{Name: "p", Version: v}
	}
	for _, v := range deprecated {
		pv := p.Versions[v]
		pv.Deprecated = json.RawMessage(`"do not use"`)
		p.Versions[v] = pv
	}
	return p
}

func TestPick(t *testing.T) {
	all := []string{"1.0.0", "1.1.0", "1.2.0", "1.2.1-beta.1", "2.0.0-rc.1", "2.0.0-rc.2", "1.3.0"}
	tests := []struct {
		name       string
		tags       map[string]string
		deprecated []string
		rng        string
		want       string
		wantErr    bool
	}{
		{name: "empty is latest", tags: map[string]string{"latest": "1.2.0"}, rng: "", want: "1.2.0"},
		{name: "star is latest", tags: map[string]string{"latest": "1.2.0"}, rng: "*", want: "1.2.0"},
		{name: "latest satisfies caret", tags: map[string]string{"latest": "1.2.0"}, rng: "^1.0.0", want: "1.2.0"},
		{name: "latest outside range", tags: map[string]string{"latest": "1.2.0"}, rng: "~1.1", want: "1.1.0"},
		{name: "range above latest", tags: map[string]string{"latest": "1.1.0"}, rng: ">=1.2.0", want: "1.3.0"},
		{name: "no latest tag", tags: map[string]string{}, rng: "1.x", want: "1.3.0"},
		{name: "exact", tags: map[string]string{"latest": "1.3.0"}, rng: "1.0.0", want: "1.0.0"},
		{name: "tag", tags: map[string]string{"latest": "1.3.0", "next": "2.0.0-rc.2"}, rng: "next", want: "2.0.0-rc.2"},
		{name: "unknown tag", tags: map[string]string{"latest": "1.3.0"}, rng: "beta", wantErr: true},
		{name: "tag to missing version", tags: map[string]string{"latest": "9.9.9"}, rng: "", wantErr: true},
		{name: "prerelease excluded", tags: map[string]string{}, rng: ">=1.2.0", want: "1.3.0"},
		{name: "prerelease exact", tags: map[string]string{"latest": "1.3.0"}, rng: "2.0.0-rc.1", want: "2.0.0-rc.1"},
		{name: "prerelease same tuple", tags: map[string]string{"latest": "1.3.0"}, rng: ">=2.0.0-rc.1", want: "2.0.0-rc.2"},
		{name: "prerelease other tuple not chosen", tags: map[string]string{"latest": "1.0.0"}, rng: ">=1.2.1-beta.0 <3", want: "1.3.0"},
		{name: "deprecated skipped", tags: map[string]string{"latest": "1.0.0"}, deprecated: []string{"1.3.0"}, rng: "^1.1", want: "1.2.0"},
		{name: "only deprecated", tags: map[string]string{}, deprecated: []string{"1.3.0"}, rng: "^1.3", want: "1.3.0"},
		{name: "no match", tags: map[string]string{"latest": "1.3.0"}, rng: "^3", wantErr: true},
		{name: "or range", tags: map[string]string{"latest": "1.0.0"}, rng: "^0.1 || ~1.1", want: "1.1.0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Pick(packument(tt.tags, tt.deprecated, all...), "p", tt.rng)
			if tt.wantErr {
				var nm *NoMatchError
				if !errors.As(err, &nm) || !errors.Is(err, ErrNoMatchingVersion) {
					t.Fatalf("Pick(%q) = %q, %v; want NoMatchError", tt.rng, got, err)
				}
				if !strings.Contains(err.Error(), "1.0.0, 1.1.0, 1.2.0, 1.2.1-beta.1, 1.3.0, 2.0.0-rc.1, 2.0.0-rc.2") {
					t.Errorf("error does not list the versions in order: %v", err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Pick(%q) = %q, %v; want %q", tt.rng, got, err, tt.want)
			}
		})
	}
}

func FuzzParsePackument(f *testing.F) {
	f.Add([]byte(`{"name":"p","dist-tags":{"latest":"1.0.0"},"versions":{"1.0.0":{"dist":{"tarball":"http://x/p.tgz","integrity":"sha512-AA=="}}}}`))
	f.Add([]byte(`{"versions":{"v1":{},"1.0.0-beta":{"deprecated":true}}}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParsePackument(data)
		if err != nil {
			if !errors.Is(err, ErrBadPackument) {
				t.Fatalf("error not ErrBadPackument: %v", err)
			}
			return
		}
		for _, rng := range []string{"", "*", "^1", "latest", ">=1.0.0-beta <2"} {
			v, err := Pick(p, "p", rng)
			if err == nil {
				if _, ok := p.Versions[v]; !ok {
					t.Fatalf("Pick chose %q, not in versions", v)
				}
			}
		}
	})
}
