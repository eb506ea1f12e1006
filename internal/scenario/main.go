// Command scenario runs the spirit binary end to end over the repository's
// testdata, through a launcher: scripts/test-windows.sh runs the Windows
// spirit.exe under Wine with it. With a throwaway data directory it
// validates the examples, imports a ZIP, installs a .tgz (replacing) and a
// folder, reads list --json and info --json, removes, rolls back, builds
// and validates a registry (its npm registry served here on 127.0.0.1),
// and lists and installs from a folder marketplace index, checking what
// each command prints and what it leaves on disk, not only exit codes.
//
//	go run ./internal/scenario -spirit ./spirit.exe -launcher wine -winpaths
//
// -winpaths hands spirit absolute paths as Wine's Z: drive sees them. It
// prints one "ok" or "FAIL" line per step and exits 1 when a step failed.
// Run it from the repository root.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spiritagents/spirit/internal/rmtree"
	"github.com/spiritagents/spirit/registry/registrytest"
)

func main() {
	spirit := flag.String("spirit", "", "the spirit binary to run")
	launcher := flag.String("launcher", "", "command to run it with (wine); empty runs it directly")
	winpaths := flag.Bool("winpaths", false, "pass absolute paths as Z:\\… (Wine's view of /)")
	prefix := flag.String("prefix", "wine: ", "prefix of every report line")
	flag.Parse()
	if *spirit == "" {
		fmt.Fprintln(os.Stderr, "scenario: -spirit is required")
		os.Exit(2)
	}
	work, err := os.MkdirTemp("", "spirit-scenario-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "scenario:", err)
		os.Exit(1)
	}
	s := &scenario{spirit: *spirit, launcher: *launcher, winpaths: *winpaths, prefix: *prefix, work: work,
		data: filepath.Join(work, "data")}
	s.run()
	if err := rmtree.Remove(work); err != nil {
		fmt.Fprintln(os.Stderr, "scenario:", err)
	}
	if s.failed {
		os.Exit(1)
	}
}

type scenario struct {
	spirit, launcher string
	winpaths         bool
	prefix           string
	work, data       string
	failed           bool
}

// result is one run of spirit.
type result struct {
	code        int
	out, errout string
}

// path turns a local path into the one spirit is given.
func (s *scenario) path(p string) string {
	if !s.winpaths || !filepath.IsAbs(p) {
		return p
	}
	return `Z:` + strings.ReplaceAll(p, "/", `\`)
}

func (s *scenario) spiritRun(args ...string) result {
	name, argv := s.spirit, args
	if s.launcher != "" {
		name, argv = s.launcher, append([]string{s.spirit}, args...)
	}
	cmd := exec.Command(name, argv...)
	cmd.Env = append(os.Environ(), "SPIRIT_AGENT_DATA_DIR="+s.path(s.data), "SPIRIT_HOST=cli", "SPIRIT_REGISTRY=", "NO_COLOR=1")
	var out, errout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errout
	// Wine's services, when this run starts them, inherit its output and
	// outlive it: do not wait for them to close it.
	cmd.WaitDelay = 5 * time.Second
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		return result{code: -1, errout: err.Error()}
	}
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(90 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		return result{code: -1, out: out.String(), errout: errout.String() + "\n(killed after 90 s)"}
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		return result{code: -1, errout: err.Error()}
	}
	return result{code: code, out: out.String(), errout: errout.String()}
}

// step runs check and reports it; check returns what went wrong.
func (s *scenario) step(name string, check func() error) {
	if err := check(); err != nil {
		s.failed = true
		fmt.Printf("%sFAIL spirit %s: %v\n", s.prefix, name, err)
		return
	}
	fmt.Printf("%sok   spirit %s\n", s.prefix, name)
}

// want runs spirit and returns an error unless it exits with code.
func (s *scenario) want(code int, args ...string) (result, error) {
	r := s.spiritRun(args...)
	if r.code != code {
		return r, fmt.Errorf("%s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, code, r.out, r.errout)
	}
	return r, nil
}

// listed is one extension of list --json (the fields checked).
type listed struct {
	ID            string `json:"id"`
	Version       string `json:"version"`
	Directory     string `json:"directory"`
	InstallSource string `json:"installSource"`
	Integrity     string `json:"integrity"`
}

func (s *scenario) list() (map[string]listed, error) {
	r, err := s.want(0, "extension", "list", "--json")
	if err != nil {
		return nil, err
	}
	var doc struct {
		Extensions []listed `json:"extensions"`
	}
	if err := json.Unmarshal([]byte(r.out), &doc); err != nil {
		return nil, fmt.Errorf("list --json: %v\n%s", err, r.out)
	}
	m := map[string]listed{}
	for _, e := range doc.Extensions {
		m[e.ID] = e
	}
	return m, nil
}

func (s *scenario) info(id string) (listed, error) {
	var e listed
	r, err := s.want(0, "extension", "info", id, "--json")
	if err != nil {
		return e, err
	}
	if err := json.Unmarshal([]byte(r.out), &e); err != nil {
		return e, fmt.Errorf("info --json: %v\n%s", err, r.out)
	}
	return e, nil
}

// installed checks that list --json shows exactly ids (id → version and
// install source) and that each one's directory holds its package.json.
func (s *scenario) installed(want map[string][2]string) error {
	got, err := s.list()
	if err != nil {
		return err
	}
	var ids []string
	for id := range got {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	if len(got) != len(want) {
		return fmt.Errorf("list --json shows %v, want %d extensions", ids, len(want))
	}
	for id, w := range want {
		e, ok := got[id]
		if !ok {
			return fmt.Errorf("list --json shows %v, not %s", ids, id)
		}
		if e.Version != w[0] || e.InstallSource != w[1] {
			return fmt.Errorf("%s: version %q from %q, want %q from %q", id, e.Version, e.InstallSource, w[0], w[1])
		}
		if !strings.HasPrefix(e.Directory, s.path(s.data)) {
			return fmt.Errorf("%s: directory %s is not in the data directory %s", id, e.Directory, s.path(s.data))
		}
		local := filepath.Join(s.data, "extensions", "cli", filepath.Base(strings.ReplaceAll(e.Directory, `\`, "/")))
		if _, err := os.Stat(filepath.Join(local, "package.json")); err != nil {
			return fmt.Errorf("%s: %v", id, err)
		}
	}
	return nil
}

// tidy checks that no staging or trash is left in the data directory.
func (s *scenario) tidy() error {
	for _, d := range []string{"staging", "trash"} {
		ents, err := os.ReadDir(filepath.Join(s.data, "extensions", "cli", ".spirit", d))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if len(ents) > 0 {
			return fmt.Errorf(".spirit/%s keeps %d entries (%s…)", d, len(ents), ents[0].Name())
		}
	}
	return nil
}

func (s *scenario) run() {
	good := filepath.Join("testdata", "install", "good")
	s.step("extension validate (examples)", func() error {
		for _, ex := range []string{"hello-tools", "lookup-tools"} {
			if _, err := s.want(0, "extension", "validate", filepath.Join("testdata", "examples", ex)); err != nil {
				return err
			}
		}
		r, err := s.want(3, "extension", "validate", filepath.Join("testdata", "examples", "broken-ext"))
		if err != nil {
			return err
		}
		if !strings.Contains(r.out, "Duplicate extension tool name: ok") || !strings.Contains(r.out, "15 errors, 3 warnings") {
			return fmt.Errorf("broken-ext: the report lacks its problems:\n%s", r.out)
		}
		return nil
	})
	s.step("extension import (ZIP)", func() error {
		r, err := s.want(0, "extension", "import", s.path(abs(filepath.Join(good, "corpus-ext-1.0.0.zip"))))
		if err != nil {
			return err
		}
		if !strings.Contains(r.out, "version: 1.0.0") {
			return fmt.Errorf("import printed:\n%s", r.out)
		}
		return s.installed(map[string][2]string{"corpus-ext": {"1.0.0", "archive"}})
	})
	s.step("extension install --replace (.tgz)", func() error {
		if _, err := s.want(1, "extension", "install", filepath.Join(good, "corpus-ext-2.0.0.tgz")); err != nil {
			return fmt.Errorf("a second install without --replace: %w", err)
		}
		if _, err := s.want(0, "extension", "install", "--replace", "--yes", filepath.Join(good, "corpus-ext-2.0.0.tgz")); err != nil {
			return err
		}
		e, err := s.info("corpus-ext")
		if err != nil {
			return err
		}
		if e.Version != "2.0.0" || !strings.HasPrefix(e.Integrity, "sha512-") {
			return fmt.Errorf("info --json: version %q integrity %q, want 2.0.0 and a sha512", e.Version, e.Integrity)
		}
		return s.tidy()
	})
	s.step("extension install (folder)", func() error {
		if _, err := s.want(0, "extension", "install", filepath.Join("testdata", "examples", "hello-tools")); err != nil {
			return err
		}
		return s.installed(map[string][2]string{"corpus-ext": {"2.0.0", "archive"}, "hello-tools": {"1.0.0", "archive"}})
	})
	s.step("extension remove", func() error {
		r, err := s.want(0, "extension", "remove", "hello-tools")
		if err != nil {
			return err
		}
		if !strings.Contains(r.out, "Removed extension: hello-tools") {
			return fmt.Errorf("remove printed:\n%s", r.out)
		}
		if err := s.installed(map[string][2]string{"corpus-ext": {"2.0.0", "archive"}}); err != nil {
			return err
		}
		return s.tidy()
	})
	s.step("extension rollback", func() error {
		if _, err := s.want(0, "extension", "rollback", "corpus-ext"); err != nil {
			return err
		}
		if e, err := s.info("corpus-ext"); err != nil || e.Version != "1.0.0" {
			return fmt.Errorf("after a rollback: version %q (%v), want 1.0.0", e.Version, err)
		}
		if _, err := s.want(0, "extension", "rollback", "corpus-ext"); err != nil {
			return err
		}
		if e, err := s.info("corpus-ext"); err != nil || e.Version != "2.0.0" {
			return fmt.Errorf("after a second rollback: version %q (%v), want 2.0.0", e.Version, err)
		}
		return s.tidy()
	})
	s.step("registry build and validate", s.registry)
	index := s.path(abs(filepath.Join("testdata", "catalog", "registry")))
	s.step("extension marketplace list (folder index)", func() error {
		r, err := s.want(0, "extension", "marketplace", "list", "--registry", index, "--json")
		if err != nil {
			return err
		}
		var doc struct {
			Items []struct {
				ExtensionID    string `json:"extensionId"`
				DefaultVersion string `json:"defaultVersion"`
			} `json:"items"`
		}
		if err := json.Unmarshal([]byte(r.out), &doc); err != nil {
			return fmt.Errorf("marketplace list --json: %v\n%s", err, r.out)
		}
		for _, it := range doc.Items {
			if it.ExtensionID == "fixture.hello" && it.DefaultVersion == "1.1.0" {
				return nil
			}
		}
		return fmt.Errorf("marketplace list --json lacks fixture.hello 1.1.0:\n%s", r.out)
	})
	s.step("extension marketplace install (folder index)", func() error {
		r, err := s.want(1, "extension", "marketplace", "install", "fixture.tampered", "--registry", index, "--yes")
		if err != nil {
			return fmt.Errorf("a tampered tarball: %w", err)
		}
		if !strings.Contains(r.errout, "integrity") {
			return fmt.Errorf("a tampered tarball is refused without naming its integrity:\n%s", r.errout)
		}
		if _, err := s.want(0, "extension", "marketplace", "install", "fixture.hello", "--registry", index, "--yes"); err != nil {
			return err
		}
		if err := s.installed(map[string][2]string{"corpus-ext": {"2.0.0", "archive"}, "@fixture/hello": {"1.1.0", "marketplace"}}); err != nil {
			return err
		}
		return s.tidy()
	})
}

// registry builds the upstream-demo repository with its packuments served
// on 127.0.0.1, compares the output with the reference builder's, validates
// it, and checks that a changed catalog.json fails validation.
func (s *scenario) registry() error {
	fx := filepath.Join("testdata", "registry", "upstream-demo")
	srv, err := registrytest.NewDirServer(filepath.Join(fx, "npm"), 0)
	if err != nil {
		return err
	}
	defer srv.Close()
	root := filepath.Join(s.work, "registry-repo")
	if err := os.CopyFS(root, os.DirFS(filepath.Join(fx, "repo"))); err != nil {
		return err
	}
	if _, err := s.want(0, "registry", "build", "--root", s.path(root), "--npm-registry", srv.URL); err != nil {
		return err
	}
	for _, f := range []string{"catalog.json", "extensions/spiritagent.system-message-demo/detail.json"} {
		want, err := os.ReadFile(filepath.Join(fx, "want", "registry", filepath.FromSlash(f)))
		if err != nil {
			return err
		}
		got, err := os.ReadFile(filepath.Join(root, "registry", filepath.FromSlash(f)))
		if err != nil {
			return err
		}
		if !bytes.Equal(got, want) {
			return fmt.Errorf("registry build: %s differs from the reference builder's", f)
		}
	}
	if _, err := s.want(0, "registry", "validate", "--root", s.path(root)); err != nil {
		return err
	}
	catalog := filepath.Join(root, "registry", "catalog.json")
	data, err := os.ReadFile(catalog)
	if err != nil {
		return err
	}
	changed := bytes.Replace(data, []byte(`"featured": false`), []byte(`"featured": true`), 1)
	if bytes.Equal(changed, data) {
		changed = bytes.Replace(data, []byte(`"featured": true`), []byte(`"featured": false`), 1)
	}
	if err := os.WriteFile(catalog, changed, 0o644); err != nil {
		return err
	}
	if r := s.spiritRun("registry", "validate", "--root", s.path(root)); r.code == 0 {
		return fmt.Errorf("registry validate passes a catalog.json that disagrees with its entry:\n%s", r.out)
	}
	return nil
}

func abs(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	return a
}
