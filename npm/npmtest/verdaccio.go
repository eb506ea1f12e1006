// Package npmtest runs a real npm registry, Verdaccio, for end-to-end
// tests: it starts one through scripts/verdaccio.sh (which installs
// Verdaccio on first use), publishes packages with the real `npm publish`,
// and stops the server by its PID when the test ends. Nothing here mocks
// the registry.
//
// Every wait is bounded; the server listens on 127.0.0.1 only.
package npmtest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// PrivateScope is the scope that only the user "spirit" (Token) may read.
const PrivateScope = "@private"

// Verdaccio is a running registry.
type Verdaccio struct {
	URL   string // http://127.0.0.1:PORT/
	Token string // bearer token of the user "spirit"
	Dir   string // config, storage, log
	PID   int
}

// RepoRoot returns the repository root.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// Start installs (once, into <repo>/.cache/verdaccio) and starts Verdaccio
// and registers its stop, by PID, with t.Cleanup. It fails the test when
// Node, npm or Verdaccio are missing: it never skips.
func Start(t testing.TB) *Verdaccio {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	script := filepath.Join(RepoRoot(), "scripts", "verdaccio.sh")
	cmd := exec.CommandContext(ctx, "bash", script, "start", dir)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	v := &Verdaccio{Dir: dir}
	if pid, perr := os.ReadFile(filepath.Join(dir, "pid")); perr == nil {
		v.PID, _ = strconv.Atoi(strings.TrimSpace(string(pid)))
	}
	t.Cleanup(func() { v.Stop() })
	if err != nil {
		t.Fatalf("scripts/verdaccio.sh start: %v\n%s", err, stderr.String())
	}
	fields := strings.Fields(string(out))
	if len(fields) != 2 {
		t.Fatalf("scripts/verdaccio.sh start printed %q", out)
	}
	v.URL = fields[0]
	v.PID, _ = strconv.Atoi(fields[1])
	tok, err := os.ReadFile(filepath.Join(dir, "token"))
	if err != nil {
		t.Fatal(err)
	}
	v.Token = strings.TrimSpace(string(tok))
	return v
}

// Stop stops the server by its PID: SIGTERM, then SIGKILL after 5 s.
func (v *Verdaccio) Stop() {
	if v.PID <= 0 {
		return
	}
	pid := v.PID
	v.PID = 0
	p, err := os.FindProcess(pid)
	if err != nil {
		return
	}
	_ = p.Signal(syscall.SIGTERM)
	for i := 0; i < 50; i++ {
		if p.Signal(syscall.Signal(0)) != nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	_ = p.Kill()
}

// HostKey returns the registry's .npmrc credential prefix, //127.0.0.1:PORT/.
func (v *Verdaccio) HostKey() string { return strings.TrimPrefix(v.URL, "http:") }

// Npmrc returns .npmrc text that points at the registry, with the token
// when withToken.
func (v *Verdaccio) Npmrc(withToken bool) string {
	s := "registry=" + v.URL + "\n"
	if withToken {
		s += v.HostKey() + ":_authToken=" + v.Token + "\n"
	}
	return s
}

// Package is a package to publish.
type Package struct {
	Name, Version string
	// Files are extra files (path → content); package.json is generated
	// unless Files has one.
	Files map[string]string
	// Extra fields merged into package.json.
	Extra map[string]any
	// Tag is the dist-tag to publish under ("" → latest; npm requires a
	// tag for prereleases, so they default to "next").
	Tag string
}

// Publish publishes each package with `npm publish`. Versions of one
// name go in order; different names are published in parallel.
func (v *Verdaccio) Publish(t testing.TB, pkgs ...Package) {
	t.Helper()
	userconfig := filepath.Join(v.Dir, "publish.npmrc")
	if err := os.WriteFile(userconfig, []byte(v.Npmrc(true)), 0o600); err != nil {
		t.Fatal(err)
	}
	var order []string
	byName := map[string][]Package{}
	for _, p := range pkgs {
		if _, ok := byName[p.Name]; !ok {
			order = append(order, p.Name)
		}
		byName[p.Name] = append(byName[p.Name], p)
	}
	errs := make([]error, len(order))
	sem := make(chan struct{}, 4)
	var wg sync.WaitGroup
	for i, name := range order {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			for _, p := range byName[name] {
				if errs[i] = v.publishOne(t.TempDir(), p); errs[i] != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

func (v *Verdaccio) publishOne(tmp string, p Package) error {
	dir := filepath.Join(tmp, "pkg")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if _, ok := p.Files["package.json"]; !ok {
		pj := map[string]any{"name": p.Name, "version": p.Version, "description": "test package " + p.Name}
		for k, val := range p.Extra {
			pj[k] = val
		}
		b, _ := json.MarshalIndent(pj, "", "  ")
		if err := os.WriteFile(filepath.Join(dir, "package.json"), b, 0o644); err != nil {
			return err
		}
	}
	for name, content := range p.Files {
		f := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
			return err
		}
	}
	tag := p.Tag
	if tag == "" {
		tag = "latest"
		if strings.Contains(p.Version, "-") {
			tag = "next"
		}
	}
	return v.runNpm(dir, "publish", "--tag", tag)
}

// PublishTarballs publishes packed tarballs (`npm pack` output) with `npm
// publish FILE --tag TAG`; a prerelease needs a tag to be published at all.
func (v *Verdaccio) PublishTarballs(t testing.TB, tag string, files ...string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(v.Dir, "publish.npmrc"), []byte(v.Npmrc(true)), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		v.npm(t, t.TempDir(), "publish", f, "--tag", tag)
	}
}

// DistTag sets a dist-tag with `npm dist-tag add`.
func (v *Verdaccio) DistTag(t testing.TB, nameVersion, tag string) {
	t.Helper()
	v.npm(t, t.TempDir(), "dist-tag", "add", nameVersion, tag)
}

func (v *Verdaccio) npm(t testing.TB, dir string, args ...string) {
	t.Helper()
	if err := v.runNpm(dir, args...); err != nil {
		t.Fatal(err)
	}
}

func (v *Verdaccio) runNpm(dir string, args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args = append(args, "--registry", v.URL, "--userconfig", filepath.Join(v.Dir, "publish.npmrc"),
		"--no-audit", "--no-fund", "--loglevel=error")
	cmd := exec.CommandContext(ctx, "npm", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "npm_config_cache="+filepath.Join(v.Dir, "npm-cache"), "npm_config_update_notifier=false")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("npm %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

// StoredTarball returns the path of a version's .tgz in Verdaccio's storage.
func (v *Verdaccio) StoredTarball(name, version string) string {
	base := name[strings.LastIndex(name, "/")+1:]
	return filepath.Join(v.Dir, "storage", filepath.FromSlash(name), fmt.Sprintf("%s-%s.tgz", base, version))
}
