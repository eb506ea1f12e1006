package cli

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spiritagents/spirit/internal/iostreams"
	goldenfile "github.com/spiritagents/spirit/internal/testutil/golden"
	"github.com/spiritagents/spirit/internal/testutil/statichost"
)

const fixtureRegistry = "../../testdata/catalog/registry"

// newStaticRegistry serves a registry folder as a static host does, with
// ETags and 304s (package statichost, shared with the catalog tests).
func newStaticRegistry(t *testing.T, root string) *statichost.Server {
	return statichost.New(t, root)
}

type cliEnv struct {
	data string
	now  time.Time
}

// run runs spirit with args against registry, the streams not terminals
// unless tty (then stdin is input).
func (e *cliEnv) run(t *testing.T, registry string, tty bool, input string, args ...string) (int, string, string) {
	t.Helper()
	ios, in, out, errOut := iostreams.Test()
	ios.SetTTY(tty)
	in.WriteString(input)
	f := &Factory{
		IO: ios,
		Getenv: func(k string) string {
			switch k {
			case "SPIRIT_AGENT_DATA_DIR":
				return e.data
			case "SPIRIT_REGISTRY":
				return registry
			}
			return ""
		},
		Now:        func() time.Time { return e.now },
		HTTPClient: func() *http.Client { return &http.Client{} },
	}
	code := Run(t.Context(), f, args)
	return code, out.String(), errOut.String()
}

func TestMarketplaceOverHTTP(t *testing.T) {
	srv := newStaticRegistry(t, fixtureRegistry)
	e := &cliEnv{data: t.TempDir(), now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}

	code, out, errOut := e.run(t, srv.URL, false, "", "extension", "marketplace", "list", "--long")
	if code != 0 || !strings.Contains(out, "id: fixture.hello") || strings.Contains(out, "fixture.hidden") {
		t.Fatalf("list: %d\n%s\n%s", code, out, errOut)
	}
	// A second list within --max-age asks nothing; --max-age 0 revalidates.
	before := srv.TotalHits()
	e.run(t, srv.URL, false, "", "extension", "marketplace", "list")
	if srv.TotalHits() != before {
		t.Fatal("fresh cache still asked the server")
	}
	e.run(t, srv.URL, false, "", "extension", "marketplace", "list", "--max-age", "0")
	if srv.NotModified() != 1 {
		t.Fatalf("no 304 revalidation: %d", srv.NotModified())
	}

	tests := []struct {
		name    string
		tty     bool
		input   string
		args    []string
		code    int
		out     string
		errOut  string
		version string
	}{
		{name: "unverified refused without a terminal", args: []string{"fixture.unverified"}, code: 1, errOut: "Pass --review-acknowledged to continue."},
		{name: "unverified declined at the prompt", tty: true, input: "n\n", args: []string{"fixture.unverified"}, code: 1, errOut: "is not verified by the marketplace. Install it anyway? [y/N]"},
		{name: "unverified accepted at the prompt", tty: true, input: "y\n", args: []string{"fixture.unverified"}, out: "Installed marketplace extension: Unverified"},
		{name: "tampered", args: []string{"fixture.tampered"}, code: 1, errOut: "integrity verification failed"},
		{name: "impostor", args: []string{"fixture.impostor"}, code: 1, errOut: `the package is named "@fixture/hello"`},
		{name: "stable 1.0.0", args: []string{"fixture.hello", "--version", "1.0.0"}, out: "version: 1.0.0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"extension", "marketplace", "install"}, tt.args...)
			code, out, errOut := e.run(t, srv.URL, tt.tty, tt.input, args...)
			if code != tt.code || !strings.Contains(out, tt.out) || !strings.Contains(errOut, tt.errOut) {
				t.Fatalf("code %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
		})
	}

	// The impostor did not touch the installed @fixture/hello.
	_, out, _ = e.run(t, srv.URL, false, "", "--json", "extension", "info", "@fixture/hello")
	var info map[string]any
	if err := json.Unmarshal([]byte(out), &info); err != nil || info["version"] != "1.0.0" || info["marketplaceId"] != "fixture.hello" {
		t.Fatalf("info %s %v", out, err)
	}

	// update asks at a terminal, listing what the update adds.
	code, out, errOut = e.run(t, srv.URL, true, "y\n", "extension", "update", "@fixture/hello")
	if code != 0 || !strings.Contains(errOut, "adds capabilities: tool-definitions, tool-execution, secret-storage; tools: greet") ||
		!strings.Contains(out, "Updated @fixture/hello 1.0.0 → 1.1.0") {
		t.Fatalf("update: %d\n%s\n%s", code, out, errOut)
	}
	rec := readInstalledRecord(t, e.data, "@fixture/hello")
	if rec.Version != "1.1.0" || strings.Join(rec.GrantedCapabilities, ",") != "system-prompt,tool-definitions,tool-execution,secret-storage" ||
		rec.ReviewStatus != "verified" || rec.Channel != "stable" || !strings.HasPrefix(rec.Integrity, "sha512-") {
		t.Fatalf("record %+v", rec)
	}

	// Offline: the server fails, the cache answers and its age is said.
	srv.SetStatus(http.StatusServiceUnavailable)
	e.now = e.now.Add(2 * time.Hour)
	code, out, errOut = e.run(t, srv.URL, false, "", "extension", "marketplace", "list", "--long")
	if code != 0 || !strings.Contains(out, "installed: Installed 1.1.0") || !strings.Contains(errOut, "using the cached copy from 2h0m0s ago") {
		t.Fatalf("offline list: %d\n%s\n%s", code, out, errOut)
	}

	// Plain http to a host that is not loopback is a usage error.
	code, _, errOut = e.run(t, "http://registry.example.com/", false, "", "extension", "marketplace", "list")
	if code != ExitUsage || !strings.Contains(errOut, "URL must use https") {
		t.Fatalf("insecure: %d %s", code, errOut)
	}
}

type recordJSON struct {
	Version             string   `json:"version"`
	Integrity           string   `json:"integrity"`
	GrantedCapabilities []string `json:"grantedCapabilities"`
	MarketplaceID       string   `json:"marketplaceId"`
	Channel             string   `json:"channel"`
	ReviewStatus        string   `json:"reviewStatus"`
}

func readInstalledRecord(t *testing.T, data, id string) recordJSON {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(data, "extensions", "cli", ".spirit", "installed.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Extensions map[string]recordJSON `json:"extensions"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Extensions[id]
}

// TestMarketplaceJSONGolden pins the --json contract of list, detail and
// readme on the real upstream registry data.
func TestMarketplaceJSONGolden(t *testing.T) {
	ref, _ := filepath.Abs("../../testdata/catalog/reference")
	e := &cliEnv{data: t.TempDir(), now: time.Now()}
	tests := []struct {
		name string
		args []string
	}{
		{"list", []string{"--json", "extension", "marketplace", "list"}},
		{"detail", []string{"--json", "extension", "marketplace", "detail", "spiritagent.system-message-demo"}},
		{"readme", []string{"--json", "extension", "marketplace", "readme", "spiritagent.system-message-demo"}},
		{"list-human", []string{"extension", "marketplace", "list"}},
		{"list-long", []string{"extension", "marketplace", "list", "--long"}},
		{"detail-human", []string{"extension", "marketplace", "detail", "spiritagent.system-message-demo"}},
		{"not-found", []string{"--json", "extension", "marketplace", "detail", "nope"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, out, errOut := e.run(t, ref, false, "", tt.args...)
			got := []byte(strings.ReplaceAll(out+errOut, ref, "$REF"))
			golden := filepath.Join("testdata", "marketplace", tt.name+".golden")
			goldenfile.Check(t, golden, got)
		})
	}
}
