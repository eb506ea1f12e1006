package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spiritagents/spirit/internal/testutil/golden"
)

// TestSeatbeltProfile compares the generated Seatbelt profiles, and the
// -D definitions of their parameters, with testdata/seatbelt/*.sb (rewrite
// with -update). macOS cannot run here: the profile is checked as text.
func TestSeatbeltProfile(t *testing.T) {
	const data = "/Users/u/Library/Application Support/SpiritAgent"
	base := Spec{ID: "x", PackageDir: data + "/extensions/cli/pkg-eA", WorkDir: "/Users/u/src/app", UserHome: "/Users/u",
		Hidden: []string{data}}
	node := []string{"/opt/homebrew/Cellar/node/22.1.0/bin/node", "/opt/homebrew/Cellar/libuv/1.48.0/lib/libuv.1.dylib"}
	tests := []struct {
		name   string
		policy Policy
	}{
		{name: "default", policy: Policy{}},
		{name: "grants-no-network", policy: Policy{Read: []string{"/Users/u/notes"}, Write: []string{"/Users/u/out"}, NoNetwork: true, NoWorkDir: true}},
		{name: "grant-covering-data", policy: Policy{Read: []string{"/Users/u"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := base
			spec.Policy = tt.policy
			private := data + "/extensions/cli/.spirit/sandbox/eA"
			profile, defines := seatbeltProfile(spec, grantsOf(spec), node, private+"/home", private+"/tmp")
			got := profile + ";; sandbox-exec -D\n;; " + strings.Join(defines, "\n;; ") + "\n"
			golden.Check(t, filepath.Join("testdata", "seatbelt", tt.name+".sb"), []byte(got))
		})
	}
}

// TestSeatbeltWrapKeepsPathsOutOfProfile: a working directory whose name is
// SBPL (quotes, parentheses) reaches sandbox-exec as a -D value only; the
// profile text is the same as for a plain name.
func TestSeatbeltWrapKeepsPathsOutOfProfile(t *testing.T) {
	dir := t.TempDir()
	node := filepath.Join(dir, "node")
	if err := os.WriteFile(node, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	profileFor := func(wd string) (string, []string) {
		spec := Spec{ID: "x", Node: node, PackageDir: "/d/pkg", WorkDir: wd, PrivateDir: filepath.Join(dir, "priv")}
		c, err := Status{Kind: KindSeatbelt}.Wrap(context.Background(), spec)
		if err != nil {
			t.Fatal(err)
		}
		if c.Path != SandboxExec || c.Args[1] != "-p" {
			t.Fatalf("command = %s %q, want %s -p PROFILE", c.Path, c.Args, SandboxExec)
		}
		return c.Args[2], c.Args
	}
	plain, _ := profileFor("/src/app")
	evil := `/src/x")) (allow file-read* (subpath "/`
	hostile, args := profileFor(evil)
	if plain != hostile {
		t.Errorf("the working directory changed the profile:\n%s", hostile)
	}
	if !strings.Contains(strings.Join(args, "\n"), "READ_0="+filepath.Clean(evil)) {
		t.Errorf("the working directory is not passed as READ_0: %q", args)
	}
	if !strings.Contains(strings.Join(args, "\n"), "\n"+node) {
		t.Errorf("node is not run: %q", args)
	}
}
