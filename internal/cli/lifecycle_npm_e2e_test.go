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

// TestE2ELifecycleNpm installs an npm extension by range from a real
// Verdaccio, publishes newer versions, and drives the real binary:
// outdated shows wanted and latest, update installs wanted, --latest
// crosses the major, and an unreachable registry is a warning on its row.
func TestE2ELifecycleNpm(t *testing.T) {
	t.Parallel() // its own Verdaccio and folders; it waits on npm and Node most of the time
	bin := spiritCommand(t)
	v := npmtest.Start(t)
	v.Publish(t, extPackage("e2e-life", "1.0.0"))

	work := t.TempDir()
	home, data := filepath.Join(work, "home"), filepath.Join(work, "data")
	if err := os.MkdirAll(filepath.Join(work, "local"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "local", "package.json"),
		[]byte(`{"name": "local-life", "version": "1.0.0", "spiritExtension": {"displayName": "Local", "supportedHosts": ["cli"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	registry := filepath.Join(npmtest.RepoRoot(), "testdata", "catalog", "registry")
	run := func(t *testing.T, args ...string) (string, string, error) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "HOME="+home, "SPIRIT_AGENT_DATA_DIR="+data, "SPIRIT_HOST=", "SPIRIT_REGISTRY="+registry,
			"npm_config_registry="+v.URL, "NPM_CONFIG_REGISTRY=")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		return stdout.String(), stderr.String(), err
	}
	must := func(t *testing.T, args ...string) string {
		t.Helper()
		stdout, stderr, err := run(t, args...)
		if err != nil {
			t.Fatalf("spirit %s: %v\n%s%s", strings.Join(args, " "), err, stdout, stderr)
		}
		return stdout
	}
	type row struct {
		ID, Kind, Asked, Current, Wanted, Latest, Warning, CacheAge string
		Outdated, Checked                                           bool
	}
	outdated := func(t *testing.T, args ...string) map[string]row {
		t.Helper()
		var doc struct{ Sources []row }
		out := must(t, append([]string{"--json", "extension", "outdated"}, args...)...)
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("outdated --json: %v\n%s", err, out)
		}
		m := map[string]row{}
		for _, r := range doc.Sources {
			m[r.ID] = r
		}
		return m
	}
	recordOf := func(t *testing.T, id string) (version, source, integrity string) {
		t.Helper()
		var info struct{ Version, Source, Integrity string }
		if err := json.Unmarshal([]byte(must(t, "--json", "extension", "info", id)), &info); err != nil {
			t.Fatal(err)
		}
		return info.Version, info.Source, info.Integrity
	}

	must(t, "extension", "install", "e2e-life@^1.0.0", "./local")
	v.Publish(t, extPackage("e2e-life", "1.1.0"), extPackage("e2e-life", "2.0.0"))

	rows := outdated(t)
	if r := rows["e2e-life"]; r.Kind != "npm" || r.Current != "1.0.0" || r.Wanted != "1.1.0" || r.Latest != "2.0.0" || !r.Outdated || r.Asked != "e2e-life@^1.0.0" {
		t.Errorf("outdated row of e2e-life = %+v", r)
	}
	if r := rows["local-life"]; r.Kind != "local" || r.Checked {
		t.Errorf("outdated row of local-life = %+v", r)
	}
	out := must(t, "extension", "outdated")
	if !strings.Contains(out, "e2e-life\tnpm\t1.0.0\t1.1.0\t2.0.0\te2e-life@^1.0.0") || !strings.Contains(out, "Not checked: local-life (local).") {
		t.Errorf("outdated:\n%s", out)
	}

	t.Run("update installs wanted", func(t *testing.T) {
		out := must(t, "extension", "update", "--all")
		if !strings.Contains(out, "Updated e2e-life 1.0.0 → 1.1.0 (npm e2e-life@^1.0.0)") {
			t.Errorf("update --all:\n%s", out)
		}
		if ver, src, sri := recordOf(t, "e2e-life"); ver != "1.1.0" || src != "e2e-life@^1.0.0" || !strings.HasPrefix(sri, "sha512-") {
			t.Errorf("after update: %s %s %s", ver, src, sri)
		}
		if ver, _, _ := recordOf(t, "local-life"); ver != "1.0.0" {
			t.Errorf("the local install changed: %s", ver)
		}
		out = must(t, "extension", "update", "e2e-life")
		if !strings.Contains(out, "e2e-life is up to date (1.1.0, wanted 1.1.0, latest 2.0.0).") {
			t.Errorf("second update:\n%s", out)
		}
	})

	t.Run("latest crosses the major", func(t *testing.T) {
		out := must(t, "extension", "update", "e2e-life", "--latest")
		if !strings.Contains(out, "Updated e2e-life 1.1.0 → 2.0.0 (npm e2e-life@^2.0.0)") {
			t.Errorf("update --latest:\n%s", out)
		}
		if ver, src, _ := recordOf(t, "e2e-life"); ver != "2.0.0" || src != "e2e-life@^2.0.0" {
			t.Errorf("after --latest: %s %s", ver, src)
		}
	})

	t.Run("what an update adds needs consent", func(t *testing.T) {
		more := extPackage("e2e-life", "2.1.0")
		more.Extra["spiritExtension"].(map[string]any)["requestedCapabilities"] = []string{"system-prompt"}
		v.Publish(t, more)
		stdout, stderr, err := run(t, "extension", "update", "e2e-life")
		if err == nil || !strings.Contains(stderr, "Error: e2e-life: the update was not accepted: 2.1.0 adds capabilities: system-prompt") {
			t.Errorf("update without --yes: %v\n%s%s", err, stdout, stderr)
		}
		if ver, _, _ := recordOf(t, "e2e-life"); ver != "2.0.0" {
			t.Errorf("a refused update changed the install to %s", ver)
		}
		must(t, "extension", "update", "e2e-life", "--yes")
		if ver, _, _ := recordOf(t, "e2e-life"); ver != "2.1.0" {
			t.Errorf("after update --yes: %s", ver)
		}
	})

	t.Run("unreachable registry is a warning on its row", func(t *testing.T) {
		v.Stop()
		rows := outdated(t)
		if r := rows["e2e-life"]; r.Checked || r.Warning == "" || r.Current != "2.1.0" {
			t.Errorf("row with the registry down = %+v", r)
		}
		stdout, stderr, err := run(t, "extension", "outdated")
		if err != nil || !strings.Contains(stderr, "Warning: e2e-life: not checked:") || !strings.Contains(stdout, "Not checked: local-life (local).") {
			t.Errorf("outdated with the registry down: %v\n%s%s", err, stdout, stderr)
		}
		rows = outdated(t, "--offline")
		if r := rows["e2e-life"]; !r.Checked || r.Wanted != "2.1.0" || r.Latest != "2.1.0" || r.CacheAge == "" {
			t.Errorf("offline row = %+v", r)
		}
		_, stderr, err = run(t, "extension", "outdated", "--offline")
		if err != nil || !strings.Contains(stderr, "Offline: e2e-life is checked against the cached registry document, ") {
			t.Errorf("outdated --offline: %v\n%s", err, stderr)
		}
	})
}
