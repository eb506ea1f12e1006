package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/spiritagents/spirit/npm/npmtest"
)

// TestE2EAuthorGuide runs testdata/author/guide.txtar, the "Write
// your first extension" of docs/authors.md, over the real binary, real Node and npm, and a
// real registry (Verdaccio) for npm publish and spirit registry, as on a
// headless machine: no D-Bus session bus, no dbus-launch, no choice of
// secret store.
func TestE2EAuthorGuide(t *testing.T) {
	t.Parallel() // its own Verdaccio and folders; it waits on npm and Node most of the time
	_, file, _, _ := runtime.Caller(0)
	repo := filepath.Join(filepath.Dir(file), "..", "..")
	v := npmtest.Start(t)
	v.PublishSpirit(t)
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/author",
		RequireExplicitExec: true,
		Cmds:                scriptCmds(),
		Setup: func(env *testscript.Env) error {
			home := filepath.Join(env.WorkDir, "home")
			if err := os.MkdirAll(home, 0o700); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(home, ".npmrc"), []byte(v.Npmrc(true)), 0o600); err != nil {
				return err
			}
			env.Setenv("REPO", repo)
			env.Setenv("HOME", home)
			env.Setenv("npm_config_cache", filepath.Join(env.WorkDir, "npm-cache"))
			env.Setenv("npm_config_prefix", filepath.Join(env.WorkDir, "global")) // npm install --global
			env.Setenv("SPIRIT_AGENT_DATA_DIR", filepath.Join(env.WorkDir, "data"))
			env.Setenv("SPIRIT_HOST", "")
			env.Setenv("SPIRIT_REGISTRY", "")
			// A headless machine: no session bus, and a dbus-launch that
			// only says it ran; no SPIRIT_KEYRING_BACKEND.
			env.Setenv("SPIRIT_KEYRING_BACKEND", "")
			env.Setenv("SPIRIT_KEYRING_PASSWORD", "")
			env.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
			bin := filepath.Join(env.WorkDir, "nodbus")
			if err := os.MkdirAll(bin, 0o755); err != nil {
				return err
			}
			stub := "#!/bin/sh\necho ran >>\"" + filepath.Join(env.WorkDir, "dbus-launch-ran") + "\"\nexit 1\n"
			if err := os.WriteFile(filepath.Join(bin, "dbus-launch"), []byte(stub), 0o755); err != nil {
				return err
			}
			env.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
			return nil
		},
	})
}

// TestAuthorGuideMatchesReadme checks that every command of docs/authors.md's
// "Write your first extension" is run by testdata/author/guide.txtar, in
// docs/authors.md's order.
func TestAuthorGuideMatchesReadme(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "docs", "authors.md"))
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile(filepath.Join("testdata", "author", "guide.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	section := regexp.MustCompile("(?s)## Write your first extension\n.*?```sh\n(.*?)```").FindSubmatch(readme)
	if section == nil {
		t.Fatal("docs/authors.md has no \"Write your first extension\" section with a sh block")
	}
	var run []string
	for _, line := range strings.Split(string(script), "\n") {
		if strings.HasPrefix(line, "-- ") {
			break
		}
		line = strings.TrimPrefix(line, "! ")
		if rest, ok := strings.CutPrefix(line, "exec "); ok {
			run = append(run, rest)
		} else if strings.HasPrefix(line, "cd ") {
			run = append(run, line)
		}
	}
	next := 0
	n := 0
	for _, line := range strings.Split(string(section[1]), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		n++
		for next < len(run) && run[next] != line {
			next++
		}
		if next == len(run) {
			t.Fatalf("docs/authors.md command %q is not run by guide.txtar (in order)", line)
		}
		next++
	}
	if n < 10 {
		t.Fatalf("found only %d commands in the guide", n)
	}
}
