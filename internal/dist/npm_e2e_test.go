//go:build unix

// The launcher end to end test sends POSIX signals (Ctrl-C to a process
// group, SIGTERM, SIGHUP): it runs where they exist.

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
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

	// spirit waits in `mcp serve` on stdio until its input ends, and stops
	// cleanly (exit 0) on SIGINT or SIGTERM. A signal sent to the outer
	// process only must reach it: stdin stays open, so nothing else ends it.
	type served struct {
		cmd  *exec.Cmd
		out  *os.File // spirit's stdout: EOF once spirit is gone
		err  *bytes.Buffer
		done func()
	}
	serve := func(t *testing.T, name string, args ...string) served {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		cmd := command(ctx, name, args...)
		cmd.WaitDelay = 10 * time.Second
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its own group, as a terminal's job
		in, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = w, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		w.Close()
		s := served{cmd: cmd, out: r, err: &stderr, done: func() { in.Close(); cancel(); r.Close() }}
		fmt.Fprintln(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`)
		r.SetReadDeadline(time.Now().Add(time.Minute))
		line, err := bufio.NewReader(r).ReadString('\n')
		if err != nil || !strings.Contains(line, `"id":1`) {
			s.done()
			cmd.Wait()
			t.Fatalf("mcp serve did not answer initialize: %q %v\n%s", line, err, stderr.String())
		}
		return s
	}
	// stopped checks that spirit is gone (its stdout reached EOF) and
	// returns the outer process's wait status.
	stopped := func(t *testing.T, s served) syscall.WaitStatus {
		t.Helper()
		s.out.SetReadDeadline(time.Now().Add(time.Minute))
		if _, err := io.Copy(io.Discard, s.out); err != nil {
			t.Errorf("spirit still holds its stdout: %v", err)
		}
		s.cmd.Wait()
		ws, _ := s.cmd.ProcessState.Sys().(syscall.WaitStatus)
		return ws
	}
	t.Run("ctrl-c through npx", func(t *testing.T) {
		// A terminal's Ctrl-C goes to the foreground process group: npm,
		// the shell npm runs the bin with, the launcher and spirit (which
		// gets it twice: from the terminal and from the launcher).
		s := serve(t, "npx", "spirit", "mcp", "serve")
		defer s.done()
		if err := syscall.Kill(-s.cmd.Process.Pid, syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		if ws := stopped(t, s); ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			t.Errorf("npx was killed after the test's timeout: %v\n%s", s.cmd.ProcessState, s.err)
		}
	})
	launcher := filepath.Join(proj, "node_modules", ".bin", "spirit")
	t.Run("SIGTERM to the launcher", func(t *testing.T) {
		s := serve(t, launcher, "mcp", "serve")
		defer s.done()
		if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if ws := stopped(t, s); ws.Signaled() || ws.ExitStatus() != 0 {
			t.Errorf("after SIGTERM: %v, want spirit's clean stop (exit 0)\n%s", s.cmd.ProcessState, s.err)
		}
	})
	t.Run("SIGHUP kills spirit and then the launcher", func(t *testing.T) {
		s := serve(t, launcher, "mcp", "serve")
		defer s.done()
		if err := s.cmd.Process.Signal(syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
		// spirit does not catch SIGHUP: it dies of it, and the launcher
		// re-raises it.
		if ws := stopped(t, s); !ws.Signaled() || ws.Signal() != syscall.SIGHUP {
			t.Errorf("after SIGHUP: %v, want death by SIGHUP\n%s", s.cmd.ProcessState, s.err)
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
