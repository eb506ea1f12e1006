package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spiritagents/spirit/npm/npmtest"
)

// extPackage is a valid Spirit extension package for npm publish.
func extPackage(name, version string) npmtest.Package {
	return npmtest.Package{Name: name, Version: version,
		Extra: map[string]any{
			"main": "index.mjs",
			"spiritExtension": map[string]any{
				"displayName":    "E2E " + name,
				"supportedHosts": []string{"cli", "desktop"},
			},
		},
		Files: map[string]string{"index.mjs": "export function activate() {}\n"},
	}
}

// TestE2ENpmInstall publishes extensions to a real Verdaccio with `npm
// publish` and installs them with the real spirit binary:
// `spirit extension install npm:…`, NAME@RANGE and @scope/name.
func TestE2ENpmInstall(t *testing.T) {
	t.Parallel() // its own Verdaccio and folders; it waits on npm and Node most of the time
	bin := spiritCommand(t)
	help, _ := exec.Command(bin, "extension", "install", "--help").CombinedOutput()
	for _, flag := range []string{"--npm-registry", "--offline"} {
		if !bytes.Contains(help, []byte(flag)) {
			t.Fatalf("`spirit extension install` has no %s flag: the npm source is not wired into internal/cli/install_cmd.go yet\n%s", flag, help)
		}
	}

	v := npmtest.Start(t)
	v.Publish(t,
		extPackage("e2e-ext", "1.0.0"),
		extPackage("e2e-ext", "1.2.0"),
		extPackage("e2e-ext", "2.0.0"),
		extPackage("e2e-ext", "2.1.0-beta.1"),
		extPackage("@e2e/scoped-ext", "0.1.0"),
		extPackage("@e2e/scoped-ext", "0.2.0"),
		extPackage(npmtest.PrivateScope+"/secret-ext", "1.0.0"),
		extPackage("e2e-tampered", "1.0.0"),
	)
	v.DistTag(t, "e2e-ext@1.2.0", "latest")

	work := t.TempDir()
	home := filepath.Join(work, "home")
	data := filepath.Join(work, "data")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(t *testing.T, args ...string) (string, string, error) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "HOME="+home, "SPIRIT_AGENT_DATA_DIR="+data, "SPIRIT_HOST=",
			"npm_config_registry=", "NPM_CONFIG_REGISTRY=", "NPM_TOKEN="+v.Token)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		return stdout.String(), stderr.String(), err
	}
	type record struct {
		Version     string `json:"version"`
		ResolvedURL string `json:"resolvedUrl"`
		Integrity   string `json:"integrity"`
	}
	records := func(t *testing.T) map[string]record {
		t.Helper()
		var f struct {
			Extensions map[string]record `json:"extensions"`
		}
		b, err := os.ReadFile(filepath.Join(data, "extensions", "cli", ".spirit", "installed.json"))
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if len(b) > 0 {
			if err := json.Unmarshal(b, &f); err != nil {
				t.Fatal(err)
			}
		}
		return f.Extensions
	}

	tests := []struct {
		name    string
		args    []string
		npmrc   string // written to ~/.npmrc first
		id      string
		want    string // installed version; "" means the install must fail
		wantErr string
	}{
		{name: "caret range satisfied by latest", args: []string{"e2e-ext@^1.0.0"}, id: "e2e-ext", want: "1.2.0"},
		{name: "unscoped latest", args: []string{"npm:e2e-ext", "--replace"}, id: "e2e-ext", want: "1.2.0"},
		{name: "range above latest", args: []string{"e2e-ext@>=2", "--replace"}, id: "e2e-ext", want: "2.0.0"},
		{name: "prerelease tag", args: []string{"npm:e2e-ext@next", "--replace"}, id: "e2e-ext", want: "2.1.0-beta.1"},
		{name: "scoped range", args: []string{"npm:@e2e/scoped-ext@~0.1"}, id: "@e2e/scoped-ext", want: "0.1.0"},
		{name: "scoped latest", args: []string{"@e2e/scoped-ext", "--replace"}, id: "@e2e/scoped-ext", want: "0.2.0"},
		{name: "no matching version", args: []string{"e2e-ext@^7"}, id: "e2e-nothing", wantErr: "1.0.0, 1.2.0, 2.0.0, 2.1.0-beta.1"},
		{name: "token scope without token", args: []string{npmtest.PrivateScope + "/secret-ext"}, id: npmtest.PrivateScope + "/secret-ext", wantErr: "authoriz"},
		{name: "token scope", npmrc: v.HostKey() + ":_authToken=${NPM_TOKEN}\n", args: []string{npmtest.PrivateScope + "/secret-ext@1"}, id: npmtest.PrivateScope + "/secret-ext", want: "1.0.0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := os.WriteFile(filepath.Join(home, ".npmrc"), []byte(tt.npmrc), 0o600); err != nil {
				t.Fatal(err)
			}
			args := append([]string{"extension", "install"}, tt.args...)
			args = append(args, "--npm-registry", v.URL)
			stdout, stderr, err := run(t, args...)
			if strings.Contains(stdout+stderr, v.Token) {
				t.Errorf("the token appears in the output")
			}
			rec, installed := records(t)[tt.id]
			if tt.want == "" {
				if err == nil {
					t.Fatalf("install succeeded:\n%s%s", stdout, stderr)
				}
				if !strings.Contains(stderr, tt.wantErr) {
					t.Errorf("stderr lacks %q:\n%s", tt.wantErr, stderr)
				}
				if installed {
					t.Errorf("%s is installed after a failure: %+v", tt.id, rec)
				}
				return
			}
			if err != nil {
				t.Fatalf("install: %v\n%s%s", err, stdout, stderr)
			}
			if !installed || rec.Version != tt.want || !strings.HasPrefix(rec.ResolvedURL, v.URL) || !strings.HasPrefix(rec.Integrity, "sha512-") {
				t.Fatalf("record of %s = %+v, want version %s from %s", tt.id, rec, tt.want, v.URL)
			}
		})
	}

	// Verdaccio publishes no signing keys: the install works as before,
	// -v says that nothing was verified, and the record says so.
	t.Run("registry without signing keys", func(t *testing.T) {
		_, stderr, err := run(t, "-v", "extension", "install", "npm:e2e-ext@1.0.0", "--replace", "--yes", "--npm-registry", v.URL)
		if err != nil {
			t.Fatalf("install: %v\n%s", err, stderr)
		}
		if want := "publishes no signing keys: nothing was verified for e2e-ext@1.0.0 beyond its integrity"; !strings.Contains(stderr, want) {
			t.Errorf("-v does not say %q:\n%s", want, stderr)
		}
		out, _, err := run(t, "extension", "info", "e2e-ext", "--json")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, `"status": "no-keys"`) {
			t.Errorf("info --json does not record no-keys:\n%s", out)
		}
	})

	t.Run("tampered tarball", func(t *testing.T) {
		other, err := os.ReadFile(v.StoredTarball("e2e-ext", "1.0.0"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(v.StoredTarball("e2e-tampered", "1.0.0"), other, 0o644); err != nil {
			t.Fatal(err)
		}
		before := listDir(t, filepath.Join(data, "extensions", "cli"))
		_, stderr, err := run(t, "extension", "install", "npm:e2e-tampered", "--npm-registry", v.URL)
		if err == nil || !strings.Contains(stderr, "integrity") {
			t.Fatalf("tampered install: err %v\n%s", err, stderr)
		}
		if _, ok := records(t)["e2e-tampered"]; ok {
			t.Errorf("e2e-tampered is recorded as installed")
		}
		if after := listDir(t, filepath.Join(data, "extensions", "cli")); after != before {
			t.Errorf("the extensions directory changed:\nbefore %s\nafter  %s", before, after)
		}
	})

	t.Run("offline reinstall from the cache", func(t *testing.T) {
		v.Stop() // no registry at all from here on
		stdout, stderr, err := run(t, "extension", "install", "@e2e/scoped-ext@^0.2", "--replace", "--offline", "--npm-registry", v.URL)
		if err != nil {
			t.Fatalf("offline reinstall: %v\n%s%s", err, stdout, stderr)
		}
		if rec := records(t)["@e2e/scoped-ext"]; rec.Version != "0.2.0" {
			t.Errorf("record %+v", rec)
		}
		_, stderr, err = run(t, "extension", "install", "npm:e2e-never-fetched", "--offline", "--npm-registry", v.URL)
		if err == nil || !strings.Contains(stderr, "e2e-never-fetched") || !strings.Contains(stderr, "offline") {
			t.Fatalf("offline miss: err %v\n%s", err, stderr)
		}
	})
}

// listDir names the entries of dir (not .spirit), for before/after comparisons.
func listDir(t *testing.T, dir string) string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		if e.Name() != ".spirit" {
			names = append(names, e.Name())
		}
	}
	return strings.Join(names, " ")
}
