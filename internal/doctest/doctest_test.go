package doctest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spiritagents/spirit/npm/npmtest"
)

// blockTimeout bounds one sh block or one console command.
const blockTimeout = 3 * time.Minute

// notLinked are the entries of the repository root that a document's
// working folder does not show: version control, caches and build output.
var notLinked = []string{".git", ".cache", "bin", "dist", "bench-results", "node_modules"}

// TestDocs runs every ```sh and ```console block of README.md and
// docs/**/*.md (docs/reference is generated and left out), as
// CONTRIBUTING.md describes: spirit built once and first on PATH, a real
// Verdaccio as the npm registry (with spirit's own npm packages and the
// example packages the docs install), the repository's test index as
// SPIRIT_REGISTRY, and no way out to the internet. The blocks of one
// document run in order, in one working folder and one data directory;
// documents run in parallel.
func TestDocs(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the examples are POSIX shell for bash; the Windows notes are in docs/platforms-windows.md")
	}
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	docs, err := documents(repo)
	if err != nil {
		t.Fatal(err)
	}
	byFile := map[string][]Block{}
	usesNpm := false
	for _, d := range docs {
		text, err := os.ReadFile(filepath.Join(repo, d))
		if err != nil {
			t.Fatal(err)
		}
		blocks, err := Blocks(d, string(text))
		if err != nil {
			t.Fatal(err)
		}
		if len(blocks) > 0 {
			byFile[d] = blocks
		}
		for _, b := range blocks {
			usesNpm = usesNpm || strings.Contains(b.Body, "npm")
		}
	}
	if len(byFile) == 0 {
		t.Fatal("found no sh or console block in README.md and docs/")
	}

	started := time.Now()
	shared := t.TempDir()
	bin := filepath.Join(shared, "bin")
	// spirit and its npm packages are built while Verdaccio starts and
	// takes the example packages.
	built := make(chan error, 1)
	go func() {
		build := exec.Command("go", "build", "-o", filepath.Join(bin, "spirit"), "./cmd/spirit")
		build.Dir = repo
		if out, err := build.CombinedOutput(); err != nil {
			built <- fmt.Errorf("go build ./cmd/spirit: %v\n%s", err, out)
			return
		}
		built <- nil
	}()
	type packed struct {
		tarballs []string
		err      error
	}
	spiritPackages := make(chan packed, 1)
	if usesNpm {
		go func() {
			tarballs, err := npmtest.PackSpirit(filepath.Join(shared, "dist"))
			spiritPackages <- packed{tarballs, err}
		}()
	}
	npmURL := "http://127.0.0.1:9/" // nothing listens: no example reaches npmjs.org
	npmrc := "registry=" + npmURL + "\n"
	if usesNpm {
		v := npmtest.Start(t)
		v.Publish(t, examplePackages(t, repo)...)
		p := <-spiritPackages
		if p.err != nil {
			t.Fatal(p.err)
		}
		v.PublishTarballs(t, "latest", p.tarballs...)
		npmURL, npmrc = v.URL, v.Npmrc(true)
	}
	if err := <-built; err != nil {
		t.Fatal(err)
	}
	t.Logf("spirit built, npm registry ready in %v", time.Since(started).Round(time.Millisecond))
	before := snapshot(t, repo)

	base := environ(map[string]string{
		"PATH":                       bin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"SPIRIT_REGISTRY":            filepath.Join(repo, "testdata", "catalog", "registry"),
		"npm_config_registry":        npmURL,
		"npm_config_cache":           filepath.Join(shared, "npm-cache"),
		"npm_config_update_notifier": "false",
		"npm_config_audit":           "false",
		"npm_config_fund":            "false",
		// The internet is a closed port; loopback (Verdaccio) is never proxied.
		"HTTPS_PROXY": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9",
		"https_proxy": "http://127.0.0.1:9", "http_proxy": "http://127.0.0.1:9",
		"NO_PROXY": "127.0.0.1,localhost,::1", "no_proxy": "127.0.0.1,localhost,::1",
		"GOPROXY": "off", "GOFLAGS": "-mod=mod",
		// A headless machine with the file keyring, output as in a pipe.
		"SPIRIT_KEYRING_BACKEND": "file", "DBUS_SESSION_BUS_ADDRESS": "",
		"SPIRIT_PAGER": "cat", "NO_COLOR": "1", "TERM": "dumb",
		// Placeholders the examples use (CONTRIBUTING.md).
		"MY_API_TOKEN": "example-token",
	}, "SPIRIT_AGENT_DATA_DIR", "SPIRIT_HOST", "SPIRIT_KEYRING_PASSWORD", "CLICOLOR_FORCE",
		"SPIRIT_NPM", "SPIRIT_SANDBOX", "NPM_CONFIG_REGISTRY", "SPIRIT_MCP_TOKEN")

	names := make([]string, 0, len(byFile))
	for d := range byFile {
		names = append(names, d)
	}
	slices.Sort(names)
	t.Run("docs", func(t *testing.T) {
		for _, d := range names {
			t.Run(d, func(t *testing.T) {
				t.Parallel()
				runDocument(t, repo, base, npmrc, byFile[d])
			})
		}
	})
	if after := snapshot(t, repo); !t.Failed() {
		for _, p := range changed(before, after) {
			t.Errorf("a doc example changed %s in the repository: examples must write only into their working folder", p)
		}
	}
}

// documents returns README.md and every docs/**/*.md but the generated
// reference, relative to repo.
func documents(repo string) ([]string, error) {
	out := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(repo, "docs"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repo, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() && rel == "docs/reference" {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(rel, ".md") {
			out = append(out, rel)
		}
		return nil
	})
	return out, err
}

// runDocument runs the blocks of one document in order in a working
// folder that shows the repository (each top-level entry linked), with a
// data directory, HOME and npm prefix of its own.
func runDocument(t *testing.T, repo string, base []string, npmrc string, blocks []Block) {
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	home := filepath.Join(dir, "home")
	for _, d := range []string{work, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	entries, err := os.ReadDir(repo)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if slices.Contains(notLinked, e.Name()) {
			continue
		}
		if err := os.Symlink(filepath.Join(repo, e.Name()), filepath.Join(work, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(home, ".npmrc"), []byte(npmrc), 0o600); err != nil {
		t.Fatal(err)
	}
	prefix := filepath.Join(dir, "npm-global")
	env := append(slices.Clone(base),
		"HOME="+home,
		"SPIRIT_AGENT_DATA_DIR="+filepath.Join(dir, "data"),
		"npm_config_prefix="+prefix,
	)
	// npm install --global puts its commands here; spirit (built) stays first.
	for i, kv := range env {
		if p, ok := strings.CutPrefix(kv, "PATH="); ok {
			first, rest, _ := strings.Cut(p, string(os.PathListSeparator))
			env[i] = "PATH=" + first + string(os.PathListSeparator) + filepath.Join(prefix, "bin") + string(os.PathListSeparator) + rest
		}
	}
	for _, b := range blocks {
		switch b.Lang {
		case "sh":
			out, code, err := run(work, env, b.Body)
			if err != nil || code != 0 {
				t.Fatalf("%s: the sh block failed (exit %d, %v):\n%s\n--- output ---\n%s", b.Where(), code, err, b.Body, out)
			}
		case "console":
			steps, err := Steps(b)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range steps {
				out, code, err := run(work, env, s.Command+"\n")
				if err != nil {
					t.Fatalf("%s:%d: $ %s: %v\n%s", b.File, s.Line, s.Command, err, out)
				}
				if code != s.Exit || !Match(s.Want, out) {
					t.Fatalf("%s:%d: $ %s\nexit %d, want %d\n--- got ---\n%s\n--- want ---\n%s",
						b.File, s.Line, s.Command, code, s.Exit, out, strings.Join(s.Want, "\n"))
				}
			}
		}
	}
}

// run runs script with bash -e -o pipefail in dir and returns what it
// printed on stdout and stderr together, and its exit status.
func run(dir string, env []string, script string) (string, int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), blockTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-e", "-o", "pipefail", "-c", script)
	cmd.Dir = dir
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	if ctx.Err() != nil {
		return out.String(), -1, fmt.Errorf("timed out after %v", blockTimeout)
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return out.String(), ee.ExitCode(), nil
	}
	return out.String(), 0, err
}

// environ is the process's environment with set applied and unset removed.
func environ(set map[string]string, unset ...string) []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := set[k]; ok || slices.Contains(unset, k) {
			continue
		}
		out = append(out, kv)
	}
	for k, v := range set {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}

// fileState is what snapshot keeps of a file.
type fileState struct {
	size int64
	mod  time.Time
}

// snapshot records the files of the repository that the working folders
// show, to find an example that wrote into the repository.
func snapshot(t *testing.T, repo string) map[string]fileState {
	t.Helper()
	files := map[string]fileState{}
	err := filepath.WalkDir(repo, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		// What .gitignore names is not the repository's.
		if d.IsDir() && (slices.Contains(notLinked, d.Name()) || d.Name() == "corpus-tmp" || strings.HasPrefix(d.Name(), ".dist.tmp-")) {
			return filepath.SkipDir
		}
		if d.IsDir() || strings.HasSuffix(d.Name(), ".test") || strings.HasSuffix(d.Name(), ".out") {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		files[path] = fileState{info.Size(), info.ModTime()}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func changed(before, after map[string]fileState) []string {
	var out []string
	for p, a := range after {
		if b, ok := before[p]; !ok || b != a {
			out = append(out, p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			out = append(out, p+" (removed)")
		}
	}
	slices.Sort(out)
	return out
}

// examplePackages are the npm packages the docs install: the example
// extension of the repository (testdata/examples/hello-tools) under the
// names and versions the examples use.
func examplePackages(t *testing.T, repo string) []npmtest.Package {
	t.Helper()
	dir := filepath.Join(repo, "testdata", "examples", "hello-tools")
	index, err := os.ReadFile(filepath.Join(dir, "index.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	pj, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pkgs []npmtest.Package
	for _, p := range []struct{ name, version, tag string }{
		{"@example/weather", "1.2.0", ""},
		{"@example/weather", "1.3.0", ""},
		{"@example/weather", "2.0.0-beta.1", "next"},
	} {
		manifest := strings.Replace(string(pj), `"name": "hello-tools"`, fmt.Sprintf("%q: %q", "name", p.name), 1)
		manifest = strings.Replace(manifest, `"version": "1.0.0"`, fmt.Sprintf("%q: %q", "version", p.version), 1)
		if manifest == string(pj) {
			t.Fatal("testdata/examples/hello-tools/package.json changed: examplePackages no longer renames it")
		}
		pkgs = append(pkgs, npmtest.Package{Name: p.name, Version: p.version, Tag: p.tag,
			Files: map[string]string{"package.json": manifest, "index.mjs": string(index)}})
	}
	return pkgs
}
