package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/spiritagents/spirit/npm/npmtest"
)

// TestE2EAuthorGuide runs testdata/author/guide.txtar, the README's "Write
// your first extension", over the real binary, real Node and npm, and a
// real registry (Verdaccio) for npm publish and spirit registry, as on a
// headless machine: no D-Bus session bus, no dbus-launch, no choice of
// secret store.
func TestE2EAuthorGuide(t *testing.T) {
	t.Parallel() // its own Verdaccio and folders; it waits on npm and Node most of the time
	_, file, _, _ := runtime.Caller(0)
	repo := filepath.Join(filepath.Dir(file), "..", "..")
	// make dist's program builds spirit while Verdaccio starts.
	type built struct {
		tarballs []string
		err      error
	}
	done := make(chan built, 1)
	out := filepath.Join(t.TempDir(), "dist")
	go func() {
		tarballs, err := spiritPackages(repo, out)
		done <- built{tarballs, err}
	}()
	v := npmtest.Start(t)
	b := <-done
	if b.err != nil {
		t.Fatal(b.err)
	}
	v.PublishTarballs(t, "latest", b.tarballs...)
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

// spiritPackages makes the npm packages of spirit for this machine with
// make dist's program, in out: the guide starts by installing spirit from
// npm, so they are published to the test's Verdaccio under the tag latest.
func spiritPackages(repo, out string) ([]string, error) {
	target := runtime.GOOS + "/" + runtime.GOARCH
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "run", "./internal/dist", "-targets", target, "-out", out)
	cmd.Dir = repo
	if b, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go run ./internal/dist -targets %s: %v\n%s", target, err, b)
	}
	tarballs, err := filepath.Glob(filepath.Join(out, "npm", "*.tgz"))
	if err != nil || len(tarballs) != 2 {
		return nil, fmt.Errorf("dist made %q, want the main and one platform package (%v)", tarballs, err)
	}
	return tarballs, nil
}

// TestAuthorGuideMatchesReadme checks that every command of the README's
// "Write your first extension" is run by testdata/author/guide.txtar, in
// the README's order.
func TestAuthorGuideMatchesReadme(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile(filepath.Join("testdata", "author", "guide.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	section := regexp.MustCompile("(?s)### Write your first extension\n.*?```sh\n(.*?)```").FindSubmatch(readme)
	if section == nil {
		t.Fatal("README.md has no \"Write your first extension\" section with a sh block")
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
			t.Fatalf("README command %q is not run by guide.txtar (in order)", line)
		}
		next++
	}
	if n < 10 {
		t.Fatalf("found only %d commands in the README section", n)
	}
}
