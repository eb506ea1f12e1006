package build

import (
	"runtime/debug"
	"testing"
)

func TestResolve(t *testing.T) {
	vcs := []debug.BuildSetting{
		{Key: "-trimpath", Value: "true"},
		{Key: "vcs", Value: "git"},
		{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
		{Key: "vcs.time", Value: "2026-01-02T15:04:05Z"},
		{Key: "vcs.modified", Value: "false"},
	}
	tests := []struct {
		name   string
		linked Info
		bi     *debug.BuildInfo
		want   Info
	}{
		{
			name:   "no build information",
			linked: Info{Version: "dev"},
			want:   Info{Version: "dev"},
		},
		{
			name:   "go build in a checkout without vcs stamping",
			linked: Info{Version: "dev"},
			bi:     &debug.BuildInfo{Main: debug.Module{Path: "github.com/spiritagents/spirit", Version: "(devel)"}},
			want:   Info{Version: "dev"},
		},
		{
			name:   "go install from a module proxy: the version, no commit",
			linked: Info{Version: "dev"},
			bi:     &debug.BuildInfo{Main: debug.Module{Path: "github.com/spiritagents/spirit", Version: "v1.2.3"}},
			want:   Info{Version: "v1.2.3"},
		},
		{
			name:   "go build in a git checkout",
			linked: Info{Version: "dev"},
			bi:     &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20260102150405-0123456789ab"}, Settings: vcs},
			want:   Info{Version: "v0.0.0-20260102150405-0123456789ab", Commit: "0123456789abcdef0123456789abcdef01234567", Date: "2026-01-02T15:04:05Z"},
		},
		{
			name:   "make build: the linker's values win",
			linked: Info{Version: "v1.2.3-4-gfedcba9", Commit: "fedcba9876543210fedcba9876543210fedcba98", Date: "2026-03-04T05:06:07Z"},
			bi:     &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs},
			want:   Info{Version: "v1.2.3-4-gfedcba9", Commit: "fedcba9876543210fedcba9876543210fedcba98", Date: "2026-03-04T05:06:07Z"},
		},
		{
			name:   "make build outside git: only the version",
			linked: Info{Version: "dev"},
			bi:     &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}},
			want:   Info{Version: "dev"},
		},
		{
			name:   "an empty version is dev",
			linked: Info{},
			want:   Info{Version: "dev"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := resolve(tt.linked, tt.bi); got != tt.want {
				t.Errorf("resolve = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestLine(t *testing.T) {
	tests := []struct {
		name string
		info Info
		want string
	}{
		{"version only", Info{Version: "v1.2.3"}, "spirit v1.2.3"},
		{"everything", Info{Version: "v1.2.3", Commit: "0123456789abcdef0123456789abcdef01234567", Date: "2026-01-02T15:04:05Z"}, "spirit v1.2.3 (commit 0123456789ab, 2026-01-02T15:04:05Z)"},
		{"a short commit", Info{Version: "dev", Commit: "abc123"}, "spirit dev (commit abc123)"},
		{"a date without a commit", Info{Version: "dev", Date: "2026-01-02T15:04:05Z"}, "spirit dev (2026-01-02T15:04:05Z)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.info.Line(); got != tt.want {
				t.Errorf("Line() = %q, want %q", got, tt.want)
			}
		})
	}
}

// Read takes what the linker set over the test binary's build information.
func TestReadKeepsTheLinkedVersion(t *testing.T) {
	defer func(v, c, d string) { Version, Commit, Date = v, c, d }(Version, Commit, Date)
	Version, Commit, Date = "v9.8.7", "c0ffee", "2026-05-06T07:08:09Z"
	if got, want := Read(), (Info{Version: "v9.8.7", Commit: "c0ffee", Date: "2026-05-06T07:08:09Z"}); got != want {
		t.Errorf("Read() = %+v, want %+v", got, want)
	}
}
