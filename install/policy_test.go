package install

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/spiritagents/spirit/internal/testutil/tempdir"
	"github.com/spiritagents/spirit/paths"
	"github.com/spiritagents/spirit/sandbox"
)

// systemPath makes the absolute slash path p absolute on this system: on
// Windows it gets a drive (a path without one is relative there).
func systemPath(p string) string {
	if runtime.GOOS == "windows" {
		return `C:` + filepath.FromSlash(p)
	}
	return p
}

func TestPermissionsRoundTrip(t *testing.T) {
	p := paths.New(tempdir.New(t), paths.HostCLI)
	in := &Installer{Paths: p}
	if _, err := in.SetPermissions(context.Background(), "nope", sandbox.Policy{NoNetwork: true}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("SetPermissions of a missing extension: %v, want ErrNotFound", err)
	}
	dir := p.PackageDir("ext")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"ext","version":"1.0.0","spiritExtension":{"supportedHosts":["cli"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := in.SetPermissions(context.Background(), "ext", sandbox.Policy{Read: []string{systemPath("/a/./b")}, NoNetwork: true})
	if err != nil {
		t.Fatal(err)
	}
	if got.Read[0] != systemPath("/a/b") {
		t.Fatalf("stored %q, want the cleaned %s", got.Read, systemPath("/a/b"))
	}
	back, err := Permissions(p, "ext")
	if err != nil || !back.NoNetwork || back.Read[0] != systemPath("/a/b") {
		t.Fatalf("Permissions = %+v, %v", back, err)
	}
	fi, err := os.Stat(PermissionsFile(p))
	if err != nil {
		t.Fatal(err)
	}
	// Windows has no mode bits: a file is read-only or not, and who reads
	// it is the folder's access list (the user's profile).
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Fatalf("permissions file: mode %v, want 0600", fi.Mode())
	}
	if _, err := in.SetPermissions(context.Background(), "ext", sandbox.Policy{}); err != nil {
		t.Fatal(err)
	}
	all, err := AllPermissions(p)
	if err != nil || len(all) != 0 {
		t.Fatalf("after a reset: %v, %v", all, err)
	}
}

func TestPermissionsDamaged(t *testing.T) {
	tests := []struct{ name, data, want string }{
		{name: "garbage", data: "{not json", want: "invalid character"},
		{name: "truncated", data: `{"version":1,"extensions":{"a":{"read":["/x"`, want: "unexpected end"},
		{name: "future version", data: `{"version":2,"extensions":{}}`, want: "version 2"},
		{name: "relative grant", data: `{"version":1,"extensions":{"a":{"write":["x"]}}}`, want: `extension a: invalid path grant "x"`},
		{name: "wrong types", data: `{"version":1,"extensions":{"a":{"noNetwork":"yes"}}}`, want: "cannot unmarshal"},
		{name: "huge", data: `{"version":1,"extensions":{}}` + strings.Repeat(" ", maxPermissionsFile), want: "larger than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := paths.New(tempdir.New(t), paths.HostCLI)
			if err := os.MkdirAll(p.SpiritDir(), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(PermissionsFile(p), []byte(tt.data), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := AllPermissions(p)
			if !errors.Is(err, ErrBadPermissions) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("AllPermissions = %v, want ErrBadPermissions with %q", err, tt.want)
			}
		})
	}
}

func FuzzParsePermissions(f *testing.F) {
	f.Add([]byte(`{"version":1,"extensions":{"a":{"read":["/x"],"env":["A"],"noNetwork":true}}}`))
	f.Add([]byte(`{"version":1}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		all, err := parsePermissions("permissions.json", data)
		if err != nil {
			return
		}
		for id, pol := range all {
			if _, err := pol.Clean(); err != nil {
				t.Fatalf("%s: a parsed policy does not clean: %v", id, err)
			}
		}
	})
}

// remove keeps an extension's grants (a reinstall finds them); remove
// --purge deletes them with its Landlock home, and leaves other grants.
func TestRemovePurgesPermissions(t *testing.T) {
	p := paths.New(tempdir.New(t), paths.HostCLI)
	in := &Installer{Paths: p}
	ctx := context.Background()
	for _, id := range []string{"ext", "other"} {
		dir := p.PackageDir(id)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"`+id+`","version":"1.0.0","spiritExtension":{"supportedHosts":["cli"]}}`), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := in.SetPermissions(ctx, id, sandbox.Policy{Write: []string{systemPath("/w")}}); err != nil {
			t.Fatal(err)
		}
	}
	private := PrivateDir(p, "ext")
	if err := os.MkdirAll(filepath.Join(private, "home"), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Remove(ctx, "ext", RemoveOptions{Purge: true}); err != nil {
		t.Fatal(err)
	}
	all, err := AllPermissions(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := all["ext"]; ok {
		t.Errorf("remove --purge kept the grants of ext: %+v", all)
	}
	if len(all["other"].Write) != 1 {
		t.Errorf("remove --purge of ext dropped the grants of other: %+v", all)
	}
	if _, err := os.Stat(private); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("remove --purge kept the private directory %s: %v", private, err)
	}
	if _, err := in.Remove(ctx, "other", RemoveOptions{}); err != nil {
		t.Fatal(err)
	}
	if all, _ := AllPermissions(p); len(all["other"].Write) != 1 {
		t.Errorf("remove without --purge dropped the grants: %+v", all)
	}
}

// A damaged permissions file stops remove --purge before anything is
// removed.
func TestRemovePurgeDamagedPermissions(t *testing.T) {
	p := paths.New(tempdir.New(t), paths.HostCLI)
	in := &Installer{Paths: p}
	dir := p.PackageDir("ext")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"ext","version":"1.0.0","spiritExtension":{"supportedHosts":["cli"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(PermissionsFile(p)), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(PermissionsFile(p), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Remove(context.Background(), "ext", RemoveOptions{Purge: true}); !errors.Is(err, ErrBadPermissions) {
		t.Fatalf("remove --purge with a damaged permissions file: %v, want ErrBadPermissions", err)
	}
	if _, err := Find(p, "ext"); err != nil {
		t.Fatalf("the failed remove removed the extension: %v", err)
	}
}
