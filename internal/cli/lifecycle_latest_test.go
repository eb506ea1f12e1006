package cli

import (
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spiritagents/spirit/internal/iostreams"
)

// update --latest takes a marketplace install past the channel it follows,
// to the index's default version; without it the channel is kept.
func TestUpdateLatestPastChannel(t *testing.T) {
	reg := t.TempDir()
	versions := []map[string]any{}
	for _, v := range []struct{ version, channel string }{{"1.0.0-beta.1", "preview"}, {"1.1.0", "stable"}} {
		tgz := packageTgz(t, "chan-ext", v.version)
		name := "chan-ext-" + v.version + ".tgz"
		if err := os.WriteFile(filepath.Join(reg, name), tgz, 0o644); err != nil {
			t.Fatal(err)
		}
		sum := sha512.Sum512(tgz)
		versions = append(versions, map[string]any{"version": v.version, "channel": v.channel, "reviewStatus": "verified",
			"displayName": "U", "description": "d", "supportedHosts": []string{"cli", "desktop"},
			"tarballUrl": name, "integrity": "sha512-" + base64.StdEncoding.EncodeToString(sum[:])})
	}
	writeJSONFile(t, filepath.Join(reg, "catalog.json"), map[string]any{"schemaVersion": 1, "items": []any{map[string]any{
		"extensionId": "acme.chan", "packageName": "chan-ext", "status": "listed", "featured": false,
		"defaultVersion": "1.1.0", "defaultChannel": "stable", "defaultReviewStatus": "verified",
		"detailPath": "extensions/acme.chan/detail.json", "displayName": "U", "description": "d",
		"keywords": []string{}, "supportedHosts": []string{"cli", "desktop"}, "requestedCapabilities": []string{},
	}}})
	writeJSONFile(t, filepath.Join(reg, "extensions", "acme.chan", "detail.json"), map[string]any{
		"schemaVersion": 1, "extensionId": "acme.chan", "packageName": "chan-ext", "status": "listed", "featured": false,
		"defaultVersion": "1.1.0", "defaultReviewStatus": "verified", "versions": versions})

	env := map[string]string{"SPIRIT_AGENT_DATA_DIR": t.TempDir(), "SPIRIT_REGISTRY": reg}
	run := func(args ...string) (int, string, string) {
		ios, _, out, errOut := iostreams.Test()
		f := &Factory{IO: ios, Getenv: func(k string) string { return env[k] }, Now: time.Now, HTTPClient: func() *http.Client { return &http.Client{} }}
		code := Run(t.Context(), f, args)
		return code, out.String(), errOut.String()
	}
	status := func() (version, channel string) {
		t.Helper()
		_, out, e := run("--json", "extension", "outdated")
		var got struct {
			Extensions []struct{ Installed, Channel, Default string }
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil || len(got.Extensions) != 1 {
			t.Fatalf("outdated: %v\n%s%s", err, out, e)
		}
		if got.Extensions[0].Default != "1.1.0" {
			t.Errorf("default = %q", got.Extensions[0].Default)
		}
		return got.Extensions[0].Installed, got.Extensions[0].Channel
	}
	if code, _, e := run("extension", "marketplace", "install", "acme.chan", "--channel", "preview"); code != 0 {
		t.Fatalf("install: %s", e)
	}
	if code, _, e := run("extension", "update", "acme.chan"); code != 0 {
		t.Fatalf("update: %s", e)
	}
	if v, ch := status(); v != "1.0.0-beta.1" || ch != "preview" {
		t.Fatalf("update without --latest left %s on %s", v, ch)
	}
	code, out, e := run("extension", "update", "acme.chan", "--latest")
	if code != 0 || !strings.Contains(out, "1.1.0") {
		t.Fatalf("update --latest: exit %d\n%s%s", code, out, e)
	}
	if v, ch := status(); v != "1.1.0" || ch != "stable" {
		t.Errorf("after --latest: %s on %s", v, ch)
	}
}
