package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestPolicyClean(t *testing.T) {
	tests := []struct {
		name    string
		in      Policy
		want    Policy
		wantErr string
	}{
		{name: "zero", in: Policy{}, want: Policy{}},
		{name: "cleaned and deduplicated", in: Policy{Read: []string{"/a/../b/", "/b"}, Env: []string{"GH_TOKEN", "GH_TOKEN"}},
			want: Policy{Read: []string{"/b"}, Env: []string{"GH_TOKEN"}}},
		{name: "relative path", in: Policy{Write: []string{"notes"}}, wantErr: `invalid path grant "notes"`},
		{name: "empty path", in: Policy{Read: []string{""}}, wantErr: `invalid path grant ""`},
		{name: "NUL in path", in: Policy{Read: []string{"/a\x00b"}}, wantErr: "must be an absolute path"},
		{name: "bad env name", in: Policy{Env: []string{"A=B"}}, wantErr: `invalid env grant "A=B"`},
		{name: "env name with a digit first", in: Policy{Env: []string{"1A"}}, wantErr: "not a variable name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.in.Clean()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Clean() error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Read, tt.want.Read) || !slices.Equal(got.Env, tt.want.Env) || !slices.Equal(got.Write, tt.want.Write) {
				t.Fatalf("Clean() = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestDefaultWorkDir(t *testing.T) {
	hidden := []string{"/home/u/.local/share/SpiritAgent"}
	tests := []struct {
		name string
		wd   string
		want bool
	}{
		{name: "a project", wd: "/home/u/src/app", want: true},
		{name: "root", wd: "/", want: false},
		{name: "home", wd: "/home/u", want: false},
		{name: "above home", wd: "/home", want: false},
		{name: "holds the data dir", wd: "/home/u/.local", want: false},
		{name: "inside the data dir", wd: "/home/u/.local/share/SpiritAgent/extensions", want: false},
		{name: "a sibling with a common prefix", wd: "/home/u2", want: true},
		{name: "relative", wd: "src", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := defaultWorkDirOK(tt.wd, "/home/u", hidden); got != tt.want {
				t.Fatalf("defaultWorkDirOK(%q) = %v, want %v", tt.wd, got, tt.want)
			}
		})
	}
}

func TestOutermost(t *testing.T) {
	got := outermost([]string{"/tmp/a", "/tmp-x", "/tmp", "/tmp/a/b", "/home/extension", "/tmp"})
	want := []string{"/home/extension", "/tmp", "/tmp-x"}
	if !slices.Equal(got, want) {
		t.Fatalf("outermost = %q, want %q", got, want)
	}
}

// TestWrapMasksHidden checks the order of the bwrap arguments: a grant that
// covers the data directory is followed by a tmpfs over it, and the package
// is bound back last.
func TestWrapMasksHidden(t *testing.T) {
	st := Status{Kind: KindBwrap, Path: "/usr/bin/bwrap"}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not found")
	}
	spec := Spec{ID: "x", Node: node, PackageDir: "/d/data/extensions/cli/pkg-x", WorkDir: "/d/project", UserHome: "/d/home",
		Hidden: []string{"/d/data", "/run/user/1"}, Policy: Policy{Read: []string{"/d"}, NoNetwork: true}}
	c, err := st.Wrap(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	args := strings.Join(c.Args, " ")
	for _, want := range []string{
		"--ro-bind-try /d/project /d/project --ro-bind-try /d /d --tmpfs /d/data --ro-bind /d/data/extensions/cli/pkg-x /d/data/extensions/cli/pkg-x --chdir /d/data/extensions/cli/pkg-x --",
		"--unshare-net", "--die-with-parent", "--new-session", "--unshare-pid", "--proc /proc", "--tmpfs /tmp",
	} {
		if !strings.Contains(args, want) {
			t.Errorf("bwrap arguments lack %q:\n%s", want, args)
		}
	}
	if strings.Contains(args, "/run/user/1") {
		t.Errorf("a hidden path no grant reaches is mentioned: %s", args)
	}
	if !slices.Contains(c.Env, "HOME="+HomeDir) {
		t.Errorf("env %q lacks HOME=%s", c.Env, HomeDir)
	}
}

// TestProbeNodeCache checks that a kept answer is used for the same
// executable, and that a damaged cache file is asked past.
func TestProbeNodeCache(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not found")
	}
	node, _ = filepath.EvalSymlinks(node)
	cache := filepath.Join(t.TempDir(), "cache", "node-info.json")
	first, err := ProbeNode(context.Background(), node, cache)
	if err != nil || first.Version == "" {
		t.Fatalf("ProbeNode = %+v, %v", first, err)
	}
	data, err := os.ReadFile(cache)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cache, []byte(strings.ReplaceAll(string(data), first.Version, "99.0.0")), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, _ := ProbeNode(context.Background(), node, cache); got.Version != "99.0.0" {
		t.Fatalf("the cached answer was not used: %+v", got)
	}
	if err := os.WriteFile(cache, []byte("{garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := ProbeNode(context.Background(), node, cache); err != nil || got.Version != first.Version {
		t.Fatalf("with a damaged cache: %+v, %v", got, err)
	}
}

// TestWrapRefusesGrantInHidden checks that a grant inside the data
// directory is refused in both sandboxes, not silently masked or opened.
func TestWrapRefusesGrantInHidden(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not found")
	}
	spec := Spec{ID: "x", Node: node, PackageDir: "/d/data/extensions/cli/pkg-x", PrivateDir: t.TempDir(),
		Hidden: []string{"/d/data"}, Policy: Policy{Write: []string{"/d/data/extensions/cli/extension-state"}}}
	for _, kind := range []Kind{KindBwrap, KindLandlock} {
		_, err := Status{Kind: kind, Path: "/bin/true"}.Wrap(context.Background(), spec)
		if err == nil || !strings.Contains(err.Error(), "lies in /d/data, which extensions never see") {
			t.Errorf("%s: Wrap = %v, want the grant refused", kind, err)
		}
	}
}

// TestWrapScopesBwrap checks that bubblewrap runs under spirit's Landlock
// scoping when the probe found it and the network namespace is shared, and
// directly when the extension has a network namespace of its own.
func TestWrapScopesBwrap(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not found")
	}
	st := Status{Kind: KindBwrap, Path: "/usr/bin/bwrap", Scoper: "/opt/spirit"}
	spec := Spec{ID: "x", Node: node, PackageDir: "/d/pkg"}
	c, err := st.Wrap(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if c.Path != "/opt/spirit" || !slices.Equal(c.Args[:5], []string{"spirit", ExecCommand, "--scope", "--", "/usr/bin/bwrap"}) {
		t.Errorf("shared network: %s %q, want bwrap under %s --scope", c.Path, c.Args[:5], ExecCommand)
	}
	spec.Policy.NoNetwork = true
	if c, err = st.Wrap(context.Background(), spec); err != nil {
		t.Fatal(err)
	}
	if c.Path != "/usr/bin/bwrap" || c.Args[0] != "/usr/bin/bwrap" {
		t.Errorf("no network: %s %q, want bwrap itself", c.Path, c.Args[:2])
	}
}
