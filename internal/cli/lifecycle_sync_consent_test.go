package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/internal/iostreams"
	"github.com/spiritagents/spirit/paths"
)

// sync asks at a terminal, with update's question, before it replaces an
// installed version with a lock's version that loosens a tool's approval;
// no keeps the installed version, yes applies the lock.
func TestSyncConsentPrompt(t *testing.T) {
	write := func(version, mode string) string {
		dir := filepath.Join(t.TempDir(), "ext")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		pkg := `{"name":"ext-tool","version":"` + version + `","main":"index.js","spiritExtension":{"displayName":"Tool","supportedHosts":["cli"],` +
			`"requestedCapabilities":["tool-definitions","tool-execution"],` +
			`"contributes":{"tools":[{"name":"wipe","description":"Wipes.","inputSchema":{"type":"object"},"approvalMode":"` + mode + `"}]}}}`
		for name, text := range map[string]string{"package.json": pkg, "index.js": "export const tools = {};\n"} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	factory := func(data string) *Factory {
		ios, _, _, _ := iostreams.Test()
		return &Factory{IO: ios, Getenv: func(string) string { return "" }, Now: time.Now, HTTPClient: newHTTPClient,
			Global: GlobalOptions{DataDir: data}}
	}
	data, other := t.TempDir(), t.TempDir()
	for _, c := range []struct{ data, src string }{{data, write("1.0.0", "need-approval")}, {other, write("1.1.0", "allowed")}} {
		if err := runInstall(t.Context(), &InstallOptions{f: factory(c.data), Source: c.src, LockTimeout: 5 * time.Second}); err != nil {
			t.Fatal(err)
		}
	}
	lock, _, err := install.BuildLock(paths.New(other, paths.HostCLI))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "spirit-lock.json")
	if err := os.WriteFile(file, lock.Encode(), 0o644); err != nil {
		t.Fatal(err)
	}
	version := func() string {
		got, err := install.Find(paths.New(data, paths.HostCLI), "ext-tool")
		if err != nil {
			t.Fatal(err)
		}
		return got.Version()
	}
	sync := func(answer string) (string, error) {
		f := factory(data)
		ios, in, _, errOut := iostreams.Test()
		ios.SetTTY(true)
		in.WriteString(answer)
		f.IO = ios
		err := runSync(t.Context(), &SyncOptions{f: f, File: file, LockTimeout: 5 * time.Second})
		return errOut.String(), err
	}
	stderr, err := sync("n\n")
	if err == nil || !strings.Contains(stderr, "Updating ext-tool 1.0.0 → 1.1.0 loosens approval: ") || !strings.Contains(stderr, "Accept? [y/N]") {
		t.Fatalf("answer no: err %v, stderr %q", err, stderr)
	}
	if v := version(); v != "1.0.0" {
		t.Fatalf("after no: %s installed", v)
	}
	if stderr, err := sync("y\n"); err != nil {
		t.Fatalf("answer yes: %v\n%s", err, stderr)
	}
	if v := version(); v != "1.1.0" {
		t.Fatalf("after yes: %s installed", v)
	}
}
