package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spiritagents/spirit/npm/npmtest"
)

// TestE2ENpmPackage publishes the packages that dist made (the main package
// and this machine's platform package) to a real Verdaccio, installs them
// the way an extension author does, and runs spirit through the launcher:
// npm install --save-dev, npx spirit --version / extension validate /
// extension pack, Ctrl-C and other signals reaching spirit, exit statuses
// passed through, and the error when the platform package is missing.
func TestE2ENpmPackage(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the signal checks need POSIX signals; the launcher's Windows path is the same spawn without them")
	}
	rel, out := builtDist(t)
	goos, goarch, _ := strings.Cut(hostTarget(t), "/")
	host := target{goos, goarch}
	v := npmtest.Start(t)
	v.PublishTarballs(t, "latest",
		filepath.Join(out, "npm", fmt.Sprintf("spiritagents-spirit-%s-%s-%s.tgz", host.npmOS(), host.npmCPU(), rel.Semver)),
		filepath.Join(out, "npm", "spiritagents-spirit-"+rel.Semver+".tgz"))

	work := t.TempDir()
	home := filepath.Join(work, "home")
	proj := filepath.Join(work, "my-ext")
	for _, d := range []string{home, proj} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		filepath.Join(home, ".npmrc"): v.Npmrc(false),
		filepath.Join(proj, "package.json"): `{
  "name": "e2e-author-ext",
  "version": "1.0.0",
  "type": "module",
  "main": "index.js",
  "files": ["index.js"],
  "spiritExtension": {"displayName": "E2E author", "supportedHosts": ["cli", "desktop"]}
}
`,
		filepath.Join(proj, "index.js"): "export function activate() { return {}; }\n",
	}
	for name, data := range files {
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := append(os.Environ(), "HOME="+home, "npm_config_cache="+filepath.Join(work, "npm-cache"),
		"npm_config_update_notifier=false", "npm_config_registry=", "NPM_CONFIG_REGISTRY=",
		"SPIRIT_AGENT_DATA_DIR="+filepath.Join(work, "data"), "SPIRIT_HOST=", "SPIRIT_REGISTRY=")
	command := func(ctx context.Context, name string, args ...string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir, cmd.Env = proj, env
		return cmd
	}
	run := func(t *testing.T, name string, args ...string) (string, string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		cmd := command(ctx, name, args...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, stdout.String(), stderr.String())
		}
		return stdout.String(), stderr.String()
	}

	run(t, "npm", "install", "--save-dev", "@spiritagents/spirit", "--no-audit", "--no-fund")
	pj, err := os.ReadFile(filepath.Join(proj, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(pj), `"@spiritagents/spirit": "^`+rel.Semver+`"`) {
		t.Fatalf("package.json has no devDependency on @spiritagents/spirit:\n%s", pj)
	}
	platformDir := filepath.Join(proj, "node_modules", "@spiritagents", "spirit-"+host.npmOS()+"-"+host.npmCPU())
	if _, err := os.Stat(filepath.Join(platformDir, "bin", host.exe())); err != nil {
		t.Fatalf("the platform package's binary is not installed: %v", err)
	}

	t.Run("version", func(t *testing.T) {
		stdout, _ := run(t, "npx", "spirit", "--version")
		if !strings.Contains(stdout, rel.Version) {
			t.Errorf("npx spirit --version printed %q, want %s", stdout, rel.Version)
		}
	})
	t.Run("validate", func(t *testing.T) {
		stdout, _ := run(t, "npx", "spirit", "extension", "validate", ".")
		if !strings.Contains(stdout, "ok: e2e-author-ext 1.0.0") {
			t.Errorf("validate printed %q", stdout)
		}
	})
	t.Run("pack", func(t *testing.T) {
		stdout, _ := run(t, "npx", "spirit", "extension", "pack")
		for _, name := range []string{"e2e-author-ext-1.0.0.tgz", "e2e-author-ext-1.0.0.zip"} {
			if !strings.Contains(stdout, name+"  sha512-") {
				t.Errorf("pack did not report %s: %q", name, stdout)
			}
			if _, err := os.Stat(filepath.Join(proj, name)); err != nil {
				t.Error(err)
			}
		}
	})
	t.Run("exit status", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		err := command(ctx, "npx", "spirit", "extension", "nosuchcommand").Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 {
			t.Errorf("a usage error through npx: %v, want exit status 2", err)
		}
	})

	// spirit waits in `mcp serve` on stdio until its input ends; a signal
	// sent to the outer process must reach it.
	serve := func(t *testing.T, name string, args ...string) (*exec.Cmd, *bytes.Buffer, func()) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		cmd := command(ctx, name, args...)
		in, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		outPipe, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintln(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`)
		line, err := bufio.NewReader(outPipe).ReadString('\n')
		if err != nil || !strings.Contains(line, `"id":1`) {
			cancel()
			cmd.Wait()
			t.Fatalf("mcp serve did not answer initialize: %q %v\n%s", line, err, stderr.String())
		}
		return cmd, &stderr, func() { in.Close(); cancel() }
	}
	t.Run("ctrl-c through npx", func(t *testing.T) {
		cmd, stderr, done := serve(t, "npx", "spirit", "mcp", "serve")
		defer done()
		if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		err := cmd.Wait()
		// spirit caught the interrupt, stopped its work and said so.
		if !strings.Contains(stderr.String(), "Interrupted") {
			t.Errorf("spirit did not report the interrupt (err %v):\n%s", err, stderr.String())
		}
		if err == nil {
			t.Errorf("npx exited 0 after Ctrl-C")
		}
	})
	launcher := filepath.Join(proj, "node_modules", ".bin", "spirit")
	t.Run("SIGTERM to the launcher", func(t *testing.T) {
		cmd, stderr, done := serve(t, launcher, "mcp", "serve")
		defer done()
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		err := cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 130 || !strings.Contains(stderr.String(), "Interrupted") {
			t.Errorf("after SIGTERM: %v, want spirit's exit status 130 and its message:\n%s", err, stderr.String())
		}
	})
	t.Run("SIGHUP kills spirit and then the launcher", func(t *testing.T) {
		cmd, stderr, done := serve(t, launcher, "mcp", "serve")
		defer done()
		if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
		err := cmd.Wait()
		ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
		if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGHUP {
			t.Errorf("after SIGHUP: %v, want death by SIGHUP (spirit's, re-raised):\n%s", err, stderr.String())
		}
	})

	t.Run("platform package missing", func(t *testing.T) {
		if err := os.RemoveAll(platformDir); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		var stderr bytes.Buffer
		cmd := command(ctx, launcher, "--version")
		cmd.Stderr = &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			t.Errorf("exit %v, want 1", err)
		}
		want := "Error: the package @spiritagents/spirit-" + host.npmOS() + "-" + host.npmCPU() + ", which holds spirit for " +
			host.npmOS() + " " + host.npmCPU() + ", is not installed\nHint: it is an optional dependency"
		if !strings.HasPrefix(stderr.String(), want) {
			t.Errorf("stderr %q, want it to start with %q", stderr.String(), want)
		}
	})

	var lock struct {
		Packages map[string]json.RawMessage `json:"packages"`
	}
	if data, err := os.ReadFile(filepath.Join(proj, "package-lock.json")); err == nil {
		_ = json.Unmarshal(data, &lock)
	}
	if _, ok := lock.Packages["node_modules/@spiritagents/spirit"]; !ok {
		t.Errorf("package-lock.json does not record @spiritagents/spirit")
	}
}
